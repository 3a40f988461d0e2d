import { definePlugin, Single } from '../../core/plugin-api.js'
import restic, { sftpRepositoryProblem } from '../../drivers/offsite/restic/index.js'
import { MIN_SCHEDULE_MINUTES, scheduleMessage, scheduleProblem } from '../../lib/cron.js'
import { type BackupsService, schemaVersions } from '../backups/public.js'
import { OffsiteConfig } from './config.js'
import { parseKeep } from './keep.js'
import { createOperations, type Operation } from './operations.js'
import { ensureOffsitePassword } from './password.js'
import { offsitePaths } from './paths.js'
import { protectionStatus } from './protection.js'
import { createRunner } from './runner.js'
import { Protection, Started } from './schemas.js'
import { createStatusStore } from './status-store.js'

/**
 * Off-site protection: snapshots of a consistent copy of the data sent to a restic repository
 * elsewhere on a schedule, checked weekly and restored in a drill monthly, and the protection
 * status admins read (with a score and the next thing to do). Progress is the realtime event
 * `protection.progress` (admins: it belongs to no user). The `hearth offsite` commands share the
 * same operations and status file.
 */
export default definePlugin(
  {
    name: 'offsite',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    prefix: '',
    config: OffsiteConfig,
    dependencies: ['backups'],
    tags: { protection: 'How well the data is protected: local backups, the off-site copy, checks and restore drills' },
    description: 'Off-site protection with restic',
  },
  async (app, api) => {
    const keep = parseKeep(api.config.keep)
    if (typeof keep === 'string') throw new Error(`HEARTH_OFFSITE_KEEP: ${keep}`)
    const problem = api.config.cron ? scheduleProblem(api.config.cron) : null
    if (problem) throw new Error(`HEARTH_OFFSITE_CRON: "${api.config.cron}" ${scheduleMessage(problem)}`)

    const repository = api.config.repository
    const refused = sftpRepositoryProblem(repository)
    if (refused) throw new Error(`HEARTH_OFFSITE_REPOSITORY: ${refused}`)
    const password = repository ? ensureOffsitePassword(api.dataDir, api.config.password) : ''
    const paths = offsitePaths(api.dataDir)
    api.hal.register(restic)
    api.hal.configure('offsite', { bin: api.config.bin, repository, password, keyFile: paths.keyFile, cacheDir: paths.cacheDir })
    const store = createStatusStore(paths.status)
    const abort = new AbortController()
    const runner = createRunner(
      createOperations({
        withDriver: (fn) => api.hal.with('offsite', fn),
        db: api.db,
        dataDir: api.dataDir,
        version: api.coreVersion,
        keep,
        checkReadPercent: api.config.checkReadPercent,
        store,
        known: () => schemaVersions(api.db),
        secrets: password ? [password] : [],
        now: () => api.now(),
        onProgress: (op, p) => runner.progress(op, p),
        signal: abort.signal,
      }),
      (data) => {
        api.events.emit('protection.progress', { userId: null, data })
        if (data.state !== 'running')
          api.log[data.state === 'done' ? 'info' : 'warn']({ offsite: data }, `off-site ${data.operation} ${data.state}`)
      },
      () => api.now(),
    )
    api.onClose(async () => {
      abort.abort()
      await runner.idle()
    })

    if (repository && api.config.cron)
      api.cron.schedule(
        'offsite',
        api.config.cron,
        async () => {
          const s = store.read()
          await runner.scheduled({ check: s.check.last_at, drill: s.drill.last_at })
        },
        { minIntervalMs: MIN_SCHEDULE_MINUTES * 60_000 },
      )

    const backups = api.services.get<BackupsService>('backups')
    const admin = { role: 'admin', scope: 'admin' } as const
    const tags = ['protection']

    app.get(
      '/admin/protection',
      {
        config: admin,
        schema: {
          summary: 'How well the data is protected',
          description:
            'The last local backup, off-site run, repository check and restore drill, each `{ last_at, ok, error }`; the score counts the copies that exist and are verified (0-3); advice says what to do next. The repository password never appears.',
          tags,
          response: { 200: Single(Protection) },
        },
      },
      async () => protectionStatus({ status: store.read(), local: backups.list(), repository }),
    )

    for (const operation of ['run', 'check', 'drill'] as const satisfies readonly Operation[]) {
      app.post(
        `/admin/protection/offsite/${operation}`,
        {
          config: { ...admin, errors: ['UNPROCESSABLE'] },
          schema: {
            summary: {
              run: 'Send a snapshot off-site now',
              check: 'Check the off-site repository',
              drill: 'Restore the latest off-site snapshot into a temporary folder and verify it',
            }[operation],
            description:
              'Starts in the background (one off-site operation at a time); progress arrives as `protection.progress` realtime events, the outcome in GET /admin/protection.',
            tags,
            response: { 202: Single(Started) },
          },
        },
        async (_req, reply) => {
          if (!repository) throw api.errors.unprocessable('No off-site repository is configured (HEARTH_OFFSITE_REPOSITORY)')
          const started = runner.start(operation)
          reply.code(202)
          return { operation, started, running: runner.busy() }
        },
      )
    }
  },
)
