/**
 * What the records plugin provides to plugins that list `records` in their dependencies:
 *
 *   const { service, occurrences } = api.services.get<RecordsPluginService>('records')
 *
 * `service` is the same records service the REST routes call (validation, user scoping,
 * change events); `occurrences` expands, overrides and cancels recurring events.
 */
import type { EventOccurrences } from './resources/event-occurrences.js'
import type { ContactPhotos } from './resources/contact-photos.js'
import type { RecordsService } from './service.js'
import type { FreeBusy } from './resources/free-busy.js'

export interface RecordsPluginService {
  service: RecordsService
  occurrences: EventOccurrences
  /** Contact photos: re-encoding received images, and the stored JPEG of a contact (vCard PHOTO). */
  photos: ContactPhotos
  /** Busy times of members and of one calendar (series expanded; cancelled, declined and transparent events left out). */
  freeBusy: FreeBusy
}

export type { ApiRecord, RecordsService, ResourceName } from './service.js'
export type { EventOccurrences } from './resources/event-occurrences.js'
export type { ContactPhotos, PreparedPhoto } from './resources/contact-photos.js'
export type { FreeBusy, Interval } from './resources/free-busy.js'
// The compact projection's last step (docs/api.md: null and empty values dropped), for plugins answering compact records.
export { dropEmpty } from './engine/list.js'
// The import limits of archives (a member, all members, unpacked), for plugins reading uploads the same way.
export { ARCHIVE_IMPORT_LIMITS } from './formats/archive.js'
export type { StoredProperty } from './engine/properties.js'

// Records as calendar and contact files, for plugins that speak them to clients (CalDAV/CardDAV, sync connectors).
// The formats themselves (content lines, RRULE, occurrences, time zones) are lib/'s: import them from there.
export { parseICalendar } from './formats/ics-parse.js'
export { serializeICalendar } from './formats/ics-serialize.js'
export type { ContactRecord, EventRecord, TaskRecord } from './formats/types.js'
export { parseTodos } from './formats/vtodo-parse.js'
export { serializeTodos, taskUid } from './formats/vtodo-serialize.js'
export { EXTRA_PROPERTIES, parseVCards } from './formats/vcard-parse.js'
export { DETAIL_PROPERTIES, detailGroups } from './formats/vcard-details.js'
export { serializeVCard } from './formats/vcard-serialize.js'
// The read-only birthdays calendar (events made from contacts), for plugins that show it (CalDAV).
export { BIRTHDAYS, type Occasion, OCCASIONS, occasionEvent } from './resources/birthdays.js'
export { cardPhoto, type InlinePhoto } from './formats/vcard-photo.js'
