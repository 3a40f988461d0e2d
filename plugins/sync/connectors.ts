import { randomUUID } from 'node:crypto'
import { checkTargetUrl, HttpError, type HearthApi, type ScheduledJob, type Static } from '../../core/plugin-api.js'
import { MIN_SCHEDULE_MINUTES, scheduleMessage, scheduleProblem } from '../../lib/cron.js'
import type { connectorRunner } from './runner.js'
import type { CreateConnector } from './schemas.js'
import type { ConnectorRow, SyncStore } from './store.js'

/**
 * A user's sync connectors: creating one (its URL judged by the outbound-address policy, its
 * password encrypted, its schedule checked), running it now or on its schedule, deleting it, and
 * the run log. The routes in index.ts are schemas over these calls.
 */
export interface ConnectorDeps {
  api: Pick<HearthApi, 'cron' | 'log' | 'secrets' | 'now' | 'events' | 'errors'>
  store: SyncStore
  runner: ReturnType<typeof connectorRunner>
  /** Every connector may reach loopback and private networks (HEARTH_OUTBOUND_ALLOW_PRIVATE). */
  allowPrivateTargets: boolean
  /** When connectors without their own schedule run; '' turns scheduled runs off. */
  instanceCron: string
}

export function connectorService({ api, store, runner, allowPrivateTargets, instanceCron }: ConnectorDeps) {
  const floor = { minIntervalMs: MIN_SCHEDULE_MINUTES * 60_000 }
  const view = (c: ConnectorRow) => ({
    id: c.id,
    kind: c.kind,
    label: c.label,
    url: c.url,
    username: c.username,
    has_password: c.password_enc !== null,
    schedule: c.schedule,
    created_at: c.created_at,
    updated_at: c.updated_at,
    last_run: store.lastRun(c.id),
  })
  const found = (userId: string, id: string) => {
    const c = store.get(userId, id)
    if (!c) throw new HttpError('NOT_FOUND', 'Connector not found')
    return c
  }

  // Scheduled runs: a connector's own cron expression, else the instance's (Keep takes uploads only).
  const jobs = new Map<string, ScheduledJob>()
  const scheduled = async (c: ConnectorRow) => {
    const current = store.byId(c.id)
    if (!current || current.active === 0) return
    try {
      const run = await runner.run(current, 'schedule')
      if (run.status === 'failed') api.log.warn({ connector: c.id, error: run.error }, 'sync run failed')
    } catch (err) {
      if (!(err instanceof HttpError && err.code === 'CONFLICT')) throw err
    }
  }
  const schedule = (c: ConnectorRow) => {
    if (c.schedule && c.kind !== 'google_keep')
      jobs.set(
        c.id,
        api.cron.schedule(`sync:${c.id}`, c.schedule, () => scheduled(c), floor),
      )
  }
  for (const c of store.all()) schedule(c)
  api.events.on('user.updated', (e) => {
    const user = e.data as { tier?: string; role?: string } | null
    if (e.userId && user?.tier && user.role) store.access(e.userId, user.tier === 'pro', user.role !== 'user')
  })
  if (instanceCron) {
    api.cron.schedule(
      'sync:instance',
      instanceCron,
      async () => {
        for (const c of store.all()) if (!c.schedule && c.kind !== 'google_keep') await scheduled(c)
      },
      floor,
    )
  }

  return {
    list(userId: string, limit: number, offset: number) {
      const page = store.list(userId, limit, offset)
      return { items: page.items.map(view), total: page.total }
    },

    get: (userId: string, id: string) => view(found(userId, id)),

    /** `admin`: the caller is an owner or admin, whose connectors may reach private addresses. */
    async create(userId: string, admin: boolean, body: Static<typeof CreateConnector>) {
      const dav = body.kind !== 'google_keep'
      if (dav && !body.url) throw api.errors.validation('url', 'required')
      const problem = body.schedule ? scheduleProblem(body.schedule) : null
      if (problem) throw api.errors.validation('schedule', problem, `schedule ${scheduleMessage(problem)}`)
      const url = dav ? (await checkTargetUrl(String(body.url), 'url', { allowPrivate: admin || allowPrivateTargets })).href : null
      const now = new Date(api.now()).toISOString()
      const row = store.insert({
        id: randomUUID(),
        user_id: userId,
        kind: body.kind,
        label: body.label,
        url,
        username: dav ? (body.username ?? null) : null,
        password_enc: dav && body.password ? api.secrets.encrypt(body.password) : null,
        schedule: dav ? (body.schedule ?? null) : null,
        allow_private: admin ? 1 : 0,
        created_at: now,
        updated_at: now,
      })
      schedule(row)
      return view(row)
    },

    remove(userId: string, id: string) {
      found(userId, id)
      if (runner.isRunning(id)) throw new HttpError('CONFLICT', 'This connector is running: delete it when the run ends')
      jobs.get(id)?.stop()
      jobs.delete(id)
      store.remove(userId, id)
    },

    /** Whether a run of this connector takes an uploaded archive (Google Keep Takeout). */
    takesUpload: (userId: string, id: string) => found(userId, id).kind === 'google_keep',

    run: (userId: string, id: string, upload?: Uint8Array) => runner.run(found(userId, id), 'manual', upload),

    runs(userId: string, id: string, limit: number, offset: number) {
      found(userId, id)
      return store.runs(userId, id, limit, offset)
    },
  }
}
