import multipart from '@fastify/multipart'
import { randomUUID } from 'node:crypto'
import {
  definePlugin,
  checkTargetUrl,
  HttpError,
  IdParams,
  readUploadedFile,
  ListOf,
  PageQuery,
  Single,
  Type,
  type ScheduledJob,
} from '../../core/plugin-api.js'
import { MIN_SCHEDULE_MINUTES, scheduleMessage, scheduleProblem } from '../../lib/cron.js'
import type { RecordsPluginService } from '../records/public.js'
import { connectorRunner } from './runner.js'
import { Connector, CreateConnector, Run } from './schemas.js'
import { type ConnectorRow, syncStore } from './store.js'

const Config = Type.Object({
  /** When connectors without their own schedule run; '' turns scheduled runs off. */
  cron: Type.String({ default: '0 * * * *', maxLength: 100, env: 'HEARTH_SYNC_CRON' }),
  /** Lets every user's connector reach loopback and private networks (a household whose CardDAV server is on the LAN). */
  allowPrivateTargets: Type.Boolean({ default: false, env: 'HEARTH_OUTBOUND_ALLOW_PRIVATE' }),
})

const MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
const pro = { tier: 'pro' } as const

/** Sync connectors (pro): pull contacts and events from CardDAV/CalDAV servers and notes from a Google Keep Takeout. */
export default definePlugin(
  {
    name: 'sync',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'Sync connectors: CardDAV, CalDAV and Google Keep Takeout into records',
    dependencies: ['records'],
    migrations: new URL('./migrations/', import.meta.url),
    config: Config,
  },
  async (app, api) => {
    const instanceProblem = api.config.cron ? scheduleProblem(api.config.cron) : null
    if (instanceProblem) throw new Error(`HEARTH_SYNC_CRON: "${api.config.cron}" ${scheduleMessage(instanceProblem)}`)
    const floor = { minIntervalMs: MIN_SCHEDULE_MINUTES * 60_000 }
    const store = syncStore(api.db)
    const records = api.services.get<RecordsPluginService>('records')
    const runner = connectorRunner({
      records,
      store,
      decrypt: (c) => api.secrets.decrypt(c),
      now: api.now,
      allowPrivate: api.config.allowPrivateTargets,
    })
    api.metrics.register('counter', 'hearth_sync_runs_total', 'Sync connector runs finished, by kind and status', ['kind', 'status'], () =>
      runner.finished(),
    )
    const iso = () => new Date(api.now()).toISOString()
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
    if (api.config.cron) {
      api.cron.schedule(
        'sync:instance',
        api.config.cron,
        async () => {
          for (const c of store.all()) if (!c.schedule && c.kind !== 'google_keep') await scheduled(c)
        },
        floor,
      )
    }

    await app.register(multipart, { limits: { fileSize: MAX_ARCHIVE_BYTES, files: 1, fields: 10, parts: 20 } })

    app.get(
      '/connectors',
      {
        config: pro,
        schema: { summary: "List the caller's sync connectors", querystring: PageQuery, response: { 200: ListOf(Connector) } },
      },
      async (req) => {
        const page = store.list(req.userId, req.query.limit, req.query.offset)
        return { items: page.items.map(view), total: page.total }
      },
    )

    app.get(
      '/connectors/:id',
      { config: pro, schema: { summary: 'Get a sync connector', params: IdParams, response: { 200: Single(Connector) } } },
      async (req) => view(found(req.userId, req.params.id)),
    )

    app.post(
      '/connectors',
      {
        config: { ...pro, errors: ['UNPROCESSABLE'] },
        schema: {
          summary: 'Create a sync connector',
          description:
            'Any pro user may create one. A CardDAV/CalDAV `url` must reach a public address unless the caller is an admin or the instance sets HEARTH_OUTBOUND_ALLOW_PRIVATE (422 UNPROCESSABLE, constraint `private_address`). The password is stored encrypted and never returned.',
          body: CreateConnector,
          response: { 201: Single(Connector) },
        },
      },
      async (req, reply) => {
        const body = req.body
        const dav = body.kind !== 'google_keep'
        if (dav && !body.url) throw api.errors.validation('url', 'required')
        const problem = body.schedule ? scheduleProblem(body.schedule) : null
        if (problem) throw api.errors.validation('schedule', problem, `schedule ${scheduleMessage(problem)}`)
        const allowPrivate = req.auth.role !== 'user'
        const url = dav
          ? (await checkTargetUrl(String(body.url), 'url', { allowPrivate: allowPrivate || api.config.allowPrivateTargets })).href
          : null
        const now = iso()
        const row = store.insert({
          id: randomUUID(),
          user_id: req.userId,
          kind: body.kind,
          label: body.label,
          url,
          username: dav ? (body.username ?? null) : null,
          password_enc: dav && body.password ? api.secrets.encrypt(body.password) : null,
          schedule: dav ? (body.schedule ?? null) : null,
          allow_private: allowPrivate ? 1 : 0,
          created_at: now,
          updated_at: now,
        })
        schedule(row)
        reply.code(201)
        return view(row)
      },
    )

    app.delete(
      '/connectors/:id',
      {
        config: { ...pro, errors: ['CONFLICT'] },
        schema: {
          summary: 'Delete a sync connector',
          description: 'Its links and run log go; the records it brought stay.',
          params: IdParams,
          response: { 204: Type.Null() },
        },
      },
      async (req) => {
        found(req.userId, req.params.id)
        if (runner.isRunning(req.params.id)) throw new HttpError('CONFLICT', 'This connector is running: delete it when the run ends')
        jobs.get(req.params.id)?.stop()
        jobs.delete(req.params.id)
        store.remove(req.userId, req.params.id)
      },
    )

    app.post(
      '/connectors/:id/run',
      {
        config: { ...pro, upload: 'file', errors: ['CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_ERROR'] },
        schema: {
          summary: 'Run a sync connector now',
          description:
            'CardDAV/CalDAV: pulls now. google_keep: upload the Takeout archive (zip or tgz) as multipart/form-data, field `file`. Answers the run: a remote failure ends it `failed` with its message.',
          params: IdParams,
          response: { 200: Single(Run) },
        },
      },
      async (req) => {
        const connector = found(req.userId, req.params.id)
        const upload =
          connector.kind === 'google_keep'
            ? (await readUploadedFile(req, { what: 'the Takeout archive', maxBytes: MAX_ARCHIVE_BYTES })).bytes
            : undefined
        return runner.run(connector, 'manual', upload)
      },
    )

    app.get(
      '/connectors/:id/runs',
      {
        config: pro,
        schema: {
          summary: "A connector's run log, newest first",
          params: IdParams,
          querystring: PageQuery,
          response: { 200: ListOf(Run) },
        },
      },
      async (req) => {
        found(req.userId, req.params.id)
        return store.runs(req.userId, req.params.id, req.query.limit, req.query.offset)
      },
    )
  },
)
