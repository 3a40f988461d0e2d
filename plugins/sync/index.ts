import multipart from '@fastify/multipart'
import { definePlugin, IdParams, readUploadedFile, ListOf, PageQuery, Single, Type } from '../../core/plugin-api.js'
import { scheduleMessage, scheduleProblem } from '../../lib/cron.js'
import type { RecordsPluginService } from '../records/public.js'
import { connectorService } from './connectors.js'
import { connectorRunner } from './runner.js'
import { Connector, CreateConnector, Run } from './schemas.js'
import { syncStore } from './store.js'

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
    const store = syncStore(api.db)
    const runner = connectorRunner({
      records: api.services.get<RecordsPluginService>('records'),
      store,
      decrypt: (c) => api.secrets.decrypt(c),
      now: api.now,
      allowPrivate: api.config.allowPrivateTargets,
    })
    api.metrics.register('counter', 'hearth_sync_runs_total', 'Sync connector runs finished, by kind and status', ['kind', 'status'], () =>
      runner.finished(),
    )
    const connectors = connectorService({
      api,
      store,
      runner,
      allowPrivateTargets: api.config.allowPrivateTargets,
      instanceCron: api.config.cron,
    })

    await app.register(multipart, { limits: { fileSize: MAX_ARCHIVE_BYTES, files: 1, fields: 10, parts: 20 } })

    app.get(
      '/connectors',
      {
        config: pro,
        schema: { summary: "List the caller's sync connectors", querystring: PageQuery, response: { 200: ListOf(Connector) } },
      },
      async (req) => connectors.list(req.userId, req.query.limit, req.query.offset),
    )

    app.get(
      '/connectors/:id',
      { config: pro, schema: { summary: 'Get a sync connector', params: IdParams, response: { 200: Single(Connector) } } },
      async (req) => connectors.get(req.userId, req.params.id),
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
        reply.code(201)
        return connectors.create(req.userId, req.auth.role !== 'user', req.body)
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
      async (req) => connectors.remove(req.userId, req.params.id),
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
        const upload = connectors.takesUpload(req.userId, req.params.id)
          ? (await readUploadedFile(req, { what: 'the Takeout archive', maxBytes: MAX_ARCHIVE_BYTES })).bytes
          : undefined
        return connectors.run(req.userId, req.params.id, upload)
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
      async (req) => connectors.runs(req.userId, req.params.id, req.query.limit, req.query.offset),
    )
  },
)
