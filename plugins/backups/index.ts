import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { definePlugin, everything, ListOf } from '../../core/plugin-api.js'
import { MIN_SCHEDULE_MINUTES, scheduleMessage, scheduleProblem } from '../../lib/cron.js'
import { createBackup } from './archive.js'
import { BackupsConfig } from './config.js'
import type { BackupsService } from './public.js'
import { applyRetention, listScheduled, scheduledName } from './schedule.js'

const Backup = Type.Object({
  name: Type.String(),
  size_bytes: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  encrypted: Type.Boolean(),
})

/**
 * Scheduled backups (HEARTH_BACKUP_CRON) taken by the daemon from its own connection, with
 * retention, and their listing for admins. The archive format and restore live beside this
 * file; the `hearth backup` and `hearth restore` commands use them.
 */
export default definePlugin(
  {
    name: 'backups',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    prefix: '',
    config: BackupsConfig,
    description: 'Scheduled backups of the database and secrets',
  },
  async (app, api) => {
    const dir = api.config.dir || join(api.dataDir, 'backups')
    api.services.provide<BackupsService>({ dir, list: () => listScheduled(dir) })

    const problem = api.config.cron ? scheduleProblem(api.config.cron) : null
    if (problem) throw new Error(`HEARTH_BACKUP_CRON: "${api.config.cron}" ${scheduleMessage(problem)}`)
    if (api.config.cron) {
      api.cron.schedule(
        'backups',
        api.config.cron,
        async () => {
          mkdirSync(dir, { recursive: true, mode: 0o700 })
          const passphrase = api.config.passphrase || undefined
          const name = scheduledName(new Date(api.now()), Boolean(passphrase))
          const { bytes } = await createBackup({
            db: api.db,
            envFile: join(api.dataDir, 'hearth.env'),
            destination: join(dir, name),
            version: api.coreVersion,
            passphrase,
          })
          const removed = applyRetention(dir, api.config.keep)
          api.log.info({ backup: name, bytes, removed }, 'scheduled backup written')
        },
        { minIntervalMs: MIN_SCHEDULE_MINUTES * 60_000 },
      )
    }

    app.get(
      '/admin/backups',
      {
        config: { role: 'admin', scope: 'admin' },
        schema: {
          summary: 'List the scheduled backups',
          description: `Newest first, from HEARTH_BACKUP_DIR; restore one with \`hearth restore FILE\` while the daemon is stopped.`,
          tags: ['backups'],
          response: { 200: ListOf(Backup) },
        },
      },
      async () => everything(listScheduled(dir).map(({ path: _path, ...b }) => b)),
    )
  },
)
