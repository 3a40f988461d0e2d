import { HttpError } from '../errors.js'
import type { EventBus } from '../events.js'
import { type ApiKeyRow, type ApiKeys, publicKey } from './api-keys.js'

/** An app password as its owner sees it: never the password after creation. */
export const publicAppPassword = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.label ?? '',
  created_at: row.created_at,
  last_used_at: row.last_used_at,
})

/**
 * App passwords are the credentials of a user's devices (CalDAV/CardDAV clients): `dav` keys the user
 * makes for themself, named after the device. One credential, two doors: an admin's
 * `POST /admin/api-keys { scope: 'dav' }` makes the same thing, and both list here. They sign in over
 * HTTP Basic on /dav/ only and are never asked for a second factor (a phone's account settings have
 * nowhere to type one); the sign-in throttle counts per account and client, so someone failing to
 * sign in as the user elsewhere never locks a device out.
 */
export function createAppPasswords(deps: { apiKeys: ApiKeys; events: EventBus }) {
  const { apiKeys } = deps
  const own = (userId: string, id: string): ApiKeyRow => {
    const row = apiKeys.get(id)
    if (!row || row.user_id !== userId || row.scope !== 'dav' || row.revoked_at) throw new HttpError('NOT_FOUND', 'App password not found')
    return row
  }
  const end = (userId: string, id: string): ApiKeyRow => {
    apiKeys.revoke(id)
    const revoked = apiKeys.get(id) as ApiKeyRow
    deps.events.emit('api_key.revoked', { userId, id, data: publicKey(revoked) })
    return revoked
  }

  return {
    create(userId: string, name: string) {
      const { row, key } = apiKeys.create(userId, 'dav', name, userId)
      return { ...publicAppPassword(row), password: key }
    },
    list: (userId: string) => apiKeys.list({ userId, scope: 'dav' }).map(publicAppPassword),
    revoke(userId: string, id: string) {
      own(userId, id)
      return publicAppPassword(end(userId, id))
    },
    /** Every app password of the user ends (a new password: see the auth service); answers how many. */
    revokeAll(userId: string): number {
      const ids = apiKeys.list({ userId, scope: 'dav' }).map((row) => row.id)
      for (const id of ids) end(userId, id)
      return ids.length
    },
  }
}
export type AppPasswords = ReturnType<typeof createAppPasswords>
