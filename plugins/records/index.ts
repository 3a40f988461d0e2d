import { Type } from '@sinclair/typebox'
import { definePlugin } from '../../core/plugin-api.js'
import { importExportRoutes } from './routes/import-export.js'
import { noteArchiveRoutes } from './routes/notes.js'
import { recordRoutes } from './routes/records.js'
import { contactPhotoRoutes } from './routes/contact-photo.js'
import { createContactPhotos } from './resources/contact-photos.js'
import { eventOccurrences } from './resources/event-occurrences.js'
import { isZone } from '../../lib/timezone/wall-clock.js'
import { createRecordsService } from './service.js'
import { shareRoutes } from './routes/shares.js'
import { invitationRoutes } from './routes/invitations.js'
import { freeBusy } from './resources/free-busy.js'
import { createShares, type Shares } from './sharing/shares.js'
import type { RecordsPluginService } from './public.js'

const Config = Type.Object({
  /** Days a soft-deleted record stays in the trash before the purge removes it (docs/api.md: 30). */
  trashRetentionDays: Type.Integer({ minimum: 1, maximum: 36_500, default: 30, env: 'HEARTH_TRASH_RETENTION_DAYS' }),
  /**
   * The household's IANA time zone (the NAS OS sets it from its own setting): new events' default
   * zone and the zone of `date=today`-style windows. Never the daemon's process TZ.
   */
  timezone: Type.String({ minLength: 1, maxLength: 64, default: 'UTC', env: 'HEARTH_TIMEZONE' }),
  /**
   * MiB of records kept with their JSON text after a read (engine/record-cache.ts): a record read
   * again is answered without SQLite or a second serialization. 0 turns the cache off.
   */
  recordCacheMb: Type.Integer({ minimum: 0, maximum: 4096, default: 32, env: 'HEARTH_RECORD_CACHE_MB' }),
})

/** Notes, contacts, calendar events and tasks under /api/v1 (api.md), with search, trash and change events. */
export default definePlugin(
  {
    name: 'records',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'Notes, contacts, calendar events and tasks',
    tags: {
      notes: 'Markdown notes: tags, pinning, archive, full-text search, export as a zip of Markdown files',
      contacts: 'The address book: vCard 4.0 and 3.0 import and export',
      events: 'The calendar: recurring events expanded in a window, iCalendar import and export',
      tasks:
        'To-dos (VTODO): due dates, priorities, lists, subtasks, recurring tasks that move on when completed, iCalendar import and export',
      shares: 'Sharing a calendar, the address book, a task list or a note with another member, for reading or writing',
    },
    prefix: '',
    migrations: new URL('./migrations/', import.meta.url),
    config: Config,
    scope: 'records',
  },
  async (app, api) => {
    if (!isZone(api.config.timezone))
      throw new Error(`HEARTH_TIMEZONE: ${api.config.timezone} is not an IANA time zone (e.g. Europe/Paris)`)
    // Late-bound: the shares need the service, and the service tells them of erased notes.
    const late: { shares?: Shares } = {}
    const service = createRecordsService({
      db: api.db,
      events: api.events,
      now: api.now,
      validator: api.validator,
      timezone: api.config.timezone,
      recordCacheBytes: api.config.recordCacheMb * 1024 * 1024,
      metrics: api.metrics,
      member: api.auth.member,
      onErased: (resource, record) => {
        if (resource === 'notes') late.shares?.noteErased(String(record.owner_id), record.id)
      },
    })
    const shares = (late.shares = createShares({ db: api.db, records: service, events: api.events, member: api.auth.member, now: api.now }))
    // Realtime hands a record's events to the members who may read it now, not only to its owner.
    for (const resource of service.resources) {
      const def = service.definition(resource)
      if (!def.sharing) continue
      api.events.readers(`${def.singular}.*`, {
        owners: (userId) => service.access.ownersSharingWith(userId),
        mayRead: (userId, event) =>
          event.userId !== null &&
          typeof event.data === 'object' &&
          event.data !== null &&
          service.access.mayRead(userId, def, { ...(event.data as Record<string, unknown>), owner_id: event.userId }, event.at),
      })
    }
    const occurrences = eventOccurrences(service, api.db)
    const photos = createContactPhotos({ db: api.db, service, now: api.now })
    // Other plugins (DAV, MCP, sync connectors, digest, AI) reach records through this, never the tables.
    const busy = freeBusy(api.db, api.auth.member, api.config.timezone)
    api.services.provide<RecordsPluginService>({ service, occurrences, photos, freeBusy: busy })
    await recordRoutes(app, { service, occurrences })
    await contactPhotoRoutes(app, { service, photos })
    await noteArchiveRoutes(app, { service })
    await shareRoutes(app, { shares })
    await invitationRoutes(app, { service, busy })
    await importExportRoutes(app, { service, occurrences, photos, events: api.events, now: api.now })

    // Hourly, and once at start so a daemon that was off at purge time catches up.
    const purge = () => {
      const purged = service.purgeTrash(api.config.trashRetentionDays)
      if (purged) api.log.info({ purged, retentionDays: api.config.trashRetentionDays }, 'trash purged')
    }
    purge()
    api.cron.schedule('records.trash-purge', '17 * * * *', purge)
  },
)
