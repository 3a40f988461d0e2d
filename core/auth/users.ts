import { randomUUID } from 'node:crypto'
import type { Db } from '../db/sqlite.js'
import type { Role, Tier } from '../schemas.js'
import { preparedOnUse } from '../db/prepared-on-use.js'

export interface UserRow {
  id: string
  email: string
  name: string | null
  password_hash: string
  role: Role
  tier: Tier | null
  disabled: number
  password_changed_at: number
  created_at: string
  updated_at: string
}

/** A user as the API returns it: never the password hash. */
export interface PublicUser {
  id: string
  email: string
  name: string | null
  role: Role
  tier: Tier
  disabled: boolean
  created_at: string
  updated_at: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const UPDATABLE = new Set(['role', 'tier', 'disabled', 'name'])

export type AuthMode = 'setup' | 'single_user' | 'multi_user'

export function createUsers(db: Db, instanceTier: Tier) {
  const q = preparedOnUse(db, {
    byId: 'SELECT * FROM users WHERE id = ?',
    byEmail: 'SELECT * FROM users WHERE email = ?',
    insert: `INSERT INTO users (id, email, name, password_hash, role, tier, disabled, password_changed_at, created_at, updated_at)
     VALUES (@id, @email, @name, @password_hash, @role, NULL, 0, @password_changed_at, @created_at, @updated_at)`,
    countAll: 'SELECT COUNT(*) AS n FROM users',
    firstUser: 'SELECT * FROM users ORDER BY created_at LIMIT 1',
    listAll: 'SELECT * FROM users ORDER BY created_at',
    setPassword: 'UPDATE users SET password_hash = ?, password_changed_at = ?, updated_at = ? WHERE id = ?',
    countOwners: "SELECT COUNT(*) AS n FROM users WHERE role = 'owner' AND disabled = 0",
  })

  // The mode is read on every system-token request; the count only changes through this module.
  let count = (q.countAll.get() as { n: number }).n

  const tierOf = (u: UserRow): Tier => u.tier ?? instanceTier
  // Every authenticated request reads its user; this module is the only writer of users, so it evicts.
  const rows = new Map<string, UserRow>()
  const load = (id: string): UserRow | undefined => {
    let row = rows.get(id)
    if (!row) {
      row = q.byId.get(id) as UserRow | undefined
      if (row) rows.set(id, row)
    }
    return row
  }

  return {
    get: load,
    byEmail: (email: string) => q.byEmail.get(email) as UserRow | undefined,
    /** An active user by id or email (emails compare without case), as another member may see them: for plugins letting one member name another. */
    member(idOrEmail: string): { id: string; email: string; name: string | null } | undefined {
      const row = UUID.test(idOrEmail) ? load(idOrEmail.toLowerCase()) : (q.byEmail.get(idOrEmail.trim()) as UserRow | undefined)
      return row && !row.disabled ? { id: row.id, email: row.email, name: row.name } : undefined
    },
    count: () => count,
    mode(): AuthMode {
      return count === 0 ? 'setup' : count === 1 ? 'single_user' : 'multi_user'
    },
    /** The only user in single-user mode. */
    soleUser: () => (count === 1 ? (q.firstUser.get() as UserRow) : undefined),
    list: () => q.listAll.all() as UserRow[],
    tierOf,
    toPublic(u: UserRow): PublicUser {
      return {
        id: u.id,
        email: u.email,
        name: u.name,
        role: u.role,
        tier: tierOf(u),
        disabled: u.disabled === 1,
        created_at: u.created_at,
        updated_at: u.updated_at,
      }
    },
    create(input: { email: string; name?: string | null; passwordHash: string; role: Role }): UserRow {
      const now = new Date().toISOString()
      const row = {
        id: randomUUID(),
        email: input.email.trim(),
        name: input.name ?? null,
        password_hash: input.passwordHash,
        role: input.role,
        // Milliseconds: access tokens whose iat precedes it stop working.
        password_changed_at: Date.now(),
        created_at: now,
        updated_at: now,
      }
      q.insert.run(row)
      count++
      return q.byId.get(row.id) as UserRow
    },
    setPassword(id: string, passwordHash: string): void {
      rows.delete(id)
      q.setPassword.run(passwordHash, Date.now(), new Date().toISOString(), id)
    },
    update(id: string, patch: { role?: Role; tier?: Tier | null; disabled?: boolean; name?: string | null }): UserRow {
      const sets: string[] = []
      const values: unknown[] = []
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined || !UPDATABLE.has(k)) continue
        sets.push(`${k} = ?`)
        values.push(k === 'disabled' ? (v ? 1 : 0) : v)
      }
      rows.delete(id)
      if (sets.length)
        db.prepare(`UPDATE users SET ${sets.join(', ')}, updated_at = ? WHERE id = ?`).run(...values, new Date().toISOString(), id)
      return q.byId.get(id) as UserRow
    },
    activeOwners: () => (q.countOwners.get() as { n: number }).n,
  }
}
export type Users = ReturnType<typeof createUsers>
