import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../core/plugin-api.js'

/** The sync plugin's tables (migrations/001-init.sql); every read of a user's rows is scoped by user_id. */
export type ConnectorKind = 'carddav' | 'caldav' | 'google_keep'

export interface ConnectorRow {
  id: string
  user_id: string
  kind: ConnectorKind
  label: string
  url: string | null
  username: string | null
  password_enc: string | null
  schedule: string | null
  allow_private: number
  active?: number
  created_at: string
  updated_at: string
}

export interface LinkRow {
  connector_id: string
  href: string
  part: string
  collection: string
  resource: string
  record_id: string
  etag: string | null
}

export interface RunRow {
  id: string
  connector_id: string
  user_id: string
  trigger: 'manual' | 'schedule'
  status: 'running' | 'ok' | 'failed'
  started_at: string
  finished_at: string | null
  created: number
  updated: number
  deleted: number
  unchanged: number
  failed: number
  error: string | null
}

export type RunCounts = Pick<RunRow, 'created' | 'updated' | 'deleted' | 'unchanged' | 'failed'>

export function syncStore(db: Database.Database) {
  const q = preparedOnUse(db, {
    insert: () =>
      db.prepare(
        `INSERT INTO sync_connectors (id, user_id, kind, label, url, username, password_enc, schedule, allow_private, created_at, updated_at)
       VALUES (@id, @user_id, @kind, @label, @url, @username, @password_enc, @schedule, @allow_private, @created_at, @updated_at)`,
      ),
    get: () => db.prepare<[string, string], ConnectorRow>('SELECT * FROM sync_connectors WHERE user_id = ? AND id = ?'),
    byId: () => db.prepare<[string], ConnectorRow>('SELECT * FROM sync_connectors WHERE id = ?'),
    list: () =>
      db.prepare<[string, number, number], ConnectorRow>(
        'SELECT * FROM sync_connectors WHERE user_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?',
      ),
    count: () => db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM sync_connectors WHERE user_id = ?'),
    all: () => db.prepare<[], ConnectorRow>('SELECT * FROM sync_connectors'),
    remove: () => db.prepare<[string, string]>('DELETE FROM sync_connectors WHERE user_id = ? AND id = ?'),
    access: () =>
      db.prepare<[number, number, string]>(
        'UPDATE sync_connectors SET active = ?, allow_private = min(allow_private, ?) WHERE user_id = ?',
      ),
    links: () => db.prepare<[string], LinkRow>('SELECT * FROM sync_links WHERE connector_id = ?'),
    putLink: () =>
      db.prepare(
        `INSERT INTO sync_links (connector_id, href, part, collection, resource, record_id, etag)
       VALUES (@connector_id, @href, @part, @collection, @resource, @record_id, @etag)
       ON CONFLICT (connector_id, href, part) DO UPDATE SET collection = excluded.collection, record_id = excluded.record_id, etag = excluded.etag`,
      ),
    dropLink: () => db.prepare<[string, string, string]>('DELETE FROM sync_links WHERE connector_id = ? AND href = ? AND part = ?'),
    token: () =>
      db.prepare<[string, string], { sync_token: string | null }>(
        'SELECT sync_token FROM sync_collections WHERE connector_id = ? AND href = ?',
      ),
    putToken: () =>
      db.prepare<[string, string, string | null]>(
        `INSERT INTO sync_collections (connector_id, href, sync_token) VALUES (?, ?, ?)
       ON CONFLICT (connector_id, href) DO UPDATE SET sync_token = excluded.sync_token`,
      ),
    dropTokensExcept: () =>
      db.prepare<[string, string]>('DELETE FROM sync_collections WHERE connector_id = ? AND href NOT IN (SELECT value FROM json_each(?))'),
    startRun: () =>
      db.prepare(
        `INSERT INTO sync_runs (id, connector_id, user_id, trigger, status, started_at) VALUES (@id, @connector_id, @user_id, @trigger, 'running', @started_at)`,
      ),
    finishRun: () =>
      db.prepare(
        `UPDATE sync_runs SET status = @status, finished_at = @finished_at, created = @created, updated = @updated, deleted = @deleted,
       unchanged = @unchanged, failed = @failed, error = @error WHERE id = @id`,
      ),
    run: () => db.prepare<[string], RunRow>('SELECT * FROM sync_runs WHERE id = ?'),
    runs: () =>
      db.prepare<[string, string, number, number], RunRow>(
        'SELECT * FROM sync_runs WHERE user_id = ? AND connector_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?',
      ),
    runCount: () =>
      db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM sync_runs WHERE user_id = ? AND connector_id = ?'),
    lastRun: () =>
      db.prepare<[string], RunRow>('SELECT * FROM sync_runs WHERE connector_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1'),
    // The log keeps the latest 100 runs of a connector.
    trimRuns: () =>
      db.prepare<[string, string]>(
        'DELETE FROM sync_runs WHERE connector_id = ? AND id NOT IN (SELECT id FROM sync_runs WHERE connector_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 100)',
      ),
  })

  return {
    insert(row: ConnectorRow) {
      q.insert.run(row)
      return row
    },
    get: (userId: string, id: string) => q.get.get(userId, id) ?? null,
    byId: (id: string) => q.byId.get(id) ?? null,
    list: (userId: string, limit: number, offset: number) => ({
      items: q.list.all(userId, limit, offset),
      total: q.count.get(userId)?.n ?? 0,
    }),
    all: () => q.all.all(),
    remove: (userId: string, id: string) => q.remove.run(userId, id).changes > 0,
    /** The owner's tier and role changed: scheduled runs pause while free; a demoted admin's connectors lose private targets. */
    access: (userId: string, pro: boolean, admin: boolean) => q.access.run(pro ? 1 : 0, admin ? 1 : 0, userId),
    links: (connectorId: string) => q.links.all(connectorId),
    putLink: (link: LinkRow) => q.putLink.run(link),
    dropLink: (link: Pick<LinkRow, 'connector_id' | 'href' | 'part'>) => q.dropLink.run(link.connector_id, link.href, link.part),
    token: (connectorId: string, href: string) => q.token.get(connectorId, href)?.sync_token ?? null,
    putToken: (connectorId: string, href: string, token: string | null) => q.putToken.run(connectorId, href, token),
    keepTokens: (connectorId: string, hrefs: string[]) => q.dropTokensExcept.run(connectorId, JSON.stringify(hrefs)),
    startRun(connector: ConnectorRow, trigger: RunRow['trigger'], startedAt: string): RunRow {
      const id = randomUUID()
      q.startRun.run({ id, connector_id: connector.id, user_id: connector.user_id, trigger, started_at: startedAt })
      return q.run.get(id) as RunRow
    },
    finishRun(
      id: string,
      connectorId: string,
      outcome: RunCounts & { status: 'ok' | 'failed'; finished_at: string; error: string | null },
    ) {
      q.finishRun.run({ id, ...outcome })
      q.trimRuns.run(connectorId, connectorId)
      return q.run.get(id) as RunRow
    },
    runs: (userId: string, connectorId: string, limit: number, offset: number) => ({
      items: q.runs.all(userId, connectorId, limit, offset),
      total: q.runCount.get(userId, connectorId)?.n ?? 0,
    }),
    lastRun: (connectorId: string) => q.lastRun.get(connectorId) ?? null,
  }
}

export type SyncStore = ReturnType<typeof syncStore>
