import type { ApiRecord, StoredProperty } from '../records/public.js'
import { writeCalendar, writeCard, writeTodo } from './objects.js'
import { isBirthdays } from './birthdays.js'
import type { GroupObject } from './contact-groups.js'
import { bookOf, type Collection, type DavObject, homeOf, type ObjectsDeps, RESOURCE } from './object-model.js'

/** An object's text, as its client wrote it or written from its records. */
export function createRender(deps: ObjectsDeps) {
  const { records, store, now, groups } = deps
  const { service } = records

  /**
   * An invitation names its organizer (RFC 6638: clients read ORGANIZER to show an event as one
   * the user is invited to, and offer answers instead of edits): the one a client wrote, else the
   * organizer member's address and name.
   */
  const organizerOf = (main: ApiRecord, kept: Map<string, StoredProperty[]>) => {
    const lines = kept.get(main.id) ?? []
    const organizer = lines.some(([n]) => n === 'ORGANIZER') ? undefined : deps.member?.(String(main.owner_id))
    if (!organizer) return
    const name = organizer.name?.trim()
    kept.set(main.id, [['ORGANIZER', name ? [['CN', [name]]] : [], `mailto:${organizer.email}`], ...lines])
  }

  /** The object's text: as its client wrote it while the record is unchanged, else written from the record. */
  const render = (userId: string, c: Collection, obj: DavObject): string => {
    if (obj.group) return groups.render(bookOf(userId, c), obj as GroupObject)
    const main = obj.records[0] as ApiRecord
    if (isBirthdays(c)) return writeCalendar(main, [], new Map(), now())
    // An invitation is always written from the record: its attendees' answers are the record's.
    const row = c.invitations ? undefined : store.byRecord(homeOf(userId, c), main.id)
    if (row?.original && row.original_etag === obj.etag) return row.original
    const kept = service.propertiesOf(
      userId,
      RESOURCE[c.kind],
      obj.records.map((r) => r.id),
    )
    if (c.kind === 'card') return writeCard(main, kept.get(main.id) ?? [], records.photos.bytesOf(main))
    if (c.kind === 'task') return writeTodo(main, kept.get(main.id) ?? [], parentUid(userId, main), now())
    if (c.invitations) organizerOf(main, kept)
    return writeCalendar(main, obj.records.slice(1), kept, now())
  }

  /** The UID a task's parent is known by (RELATED-TO): the one its client gave, else Hearth's. */
  const parentUid = (userId: string, task: ApiRecord): string | undefined => {
    const id = task.parent_id as string | null
    if (!id) return undefined
    const kept = service.propertiesOf(userId, 'tasks', [id]).get(id) ?? []
    return kept.find(([n]) => n === 'UID')?.[2] ?? `${id}@hearth`
  }

  return render
}
