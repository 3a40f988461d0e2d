import { HttpError } from '../../core/plugin-api.js'
import { parseComponents } from '../../lib/content-line/components.js'
import { type ApiRecord, cardPhoto, type PreparedPhoto, type StoredProperty } from '../records/public.js'
import { objectEtag, readCalendar, readCard, readTodo } from './objects.js'
import { AttendeeChangeRefused, answersIn, INVITATIONS } from './invitations.js'
import { isBirthdays, readOnly } from './birthdays.js'
import { isGroupCard } from './group-card.js'
import { bookOf, type Collection, type DavObject, homeOf, type ObjectsDeps, RESOURCE } from './object-model.js'
import { checkPreconditions, type createWriteRules } from './write-rules.js'
import type { createChangeLog } from './change-log.js'
import type { createObjectReads } from './object-reads.js'
import type { createRender } from './object-render.js'

/** Writing the DAV objects: PUT (a contact, a task, an event and its overrides), an invitation's answer, DELETE. */
export function createObjectWrites(
  deps: ObjectsDeps,
  reads: ReturnType<typeof createObjectReads>,
  render: ReturnType<typeof createRender>,
  rules: ReturnType<typeof createWriteRules>,
  { withName }: ReturnType<typeof createChangeLog>,
) {
  const { records, groups } = deps
  const { service } = records
  const { fetch, find, invitation } = reads
  const { replacement, withCardPhoto, remember, checkUid, taskByUid, keepGroups, release } = rules

  return {
    /**
     * A card's inline PHOTO re-encoded for storing, before the PUT's synchronous write; null when it has
     * none, or one Hearth cannot read (a phone's card is not refused for its photo).
     */
    async cardPhoto(text: string): Promise<PreparedPhoto | null> {
      const root = parseComponents(text).roots[0]
      const inline = root ? cardPhoto(root) : null
      if (!inline) return null
      try {
        return await records.photos.prepare(inline.bytes)
      } catch (err) {
        if (err instanceof HttpError) return null
        throw err
      }
    },

    /**
     * PUT: creates or replaces the object; answers whether it was created and its new ETag. `photo` is
     * a card's inline PHOTO already re-encoded (null when the card has none Hearth could read).
     */
    put(
      userId: string,
      c: Collection,
      name: string,
      text: string,
      ifMatch?: string,
      ifNoneMatch?: string,
      photo: PreparedPhoto | null = null,
    ) {
      if (isBirthdays(c)) throw readOnly()
      if (c.kind === 'card' && isGroupCard(text)) return groups.put(bookOf(userId, c), name, text, ifMatch, ifNoneMatch)
      const current = find(userId, c, name)
      if (current?.group) throw new HttpError('CONFLICT', 'A contact group card is at this name: a contact cannot replace it')
      checkPreconditions(current, ifMatch, ifNoneMatch)
      if (!current) release(userId, c, name)
      const resource = RESOURCE[c.kind]
      const home = homeOf(userId, c)
      // A new record in a collection shared with the user is its owner's (the service checks the user may write there).
      const owned = (body: Record<string, unknown>) => (c.owner === undefined ? body : { ...body, owner_id: c.owner })
      let obj: DavObject
      let keepText = true
      /** A contact or a task: one record, created or replaced, with the lines kept beside it. */
      const single = (body: Record<string, unknown>, kept: StoredProperty[]): DavObject => {
        const record = withName(home, c.kind, c.name, name, () =>
          current
            ? service.update(
                userId,
                resource,
                (current.records[0] as ApiRecord).id,
                replacement(resource, current.records[0] as ApiRecord, body),
              )
            : service.create(userId, resource, owned(body), { source: 'dav' }),
        )
        service.setProperties(userId, resource, record.id, kept)
        return { name, records: [record], etag: objectEtag([record]) }
      }
      if (c.kind === 'card') {
        const card = readCard(text)
        const uid = card.kept.find(([n]) => n === 'UID')?.[2]
        checkUid(userId, c, uid, current?.records[0]?.id)
        // A photo Hearth stores is written back from the store, re-encoded: the card's own line and text are not kept.
        const kept = photo ? card.kept.filter(([n]) => n !== 'PHOTO' && !n.endsWith('.PHOTO')) : card.kept
        obj = withCardPhoto(userId, single(keepGroups(home, card.body, current), kept), photo)
        keepText = !photo
        groups.claim(bookOf(userId, c), uid, (obj.records[0] as ApiRecord).id)
        // Claimed by a group: the record changed after the write, and so did its tag.
        const latest = fetch(userId, 'card', (obj.records[0] as ApiRecord).id)
        if (latest && latest.etag !== obj.etag) obj = { name, records: [latest], etag: objectEtag([latest]) }
      } else if (c.kind === 'task') {
        const todo = readTodo(text, service.timezone, c.name)
        checkUid(userId, c, todo.uid, current?.records[0]?.id)
        const parent = todo.parentUid ? taskByUid(userId, home, todo.parentUid) : undefined
        // A parent not (yet) known keeps its RELATED-TO line: written back as the client wrote it.
        const kept: StoredProperty[] =
          todo.parentUid && !parent ? [...todo.kept, ['RELATED-TO', [['RELTYPE', ['PARENT']]], todo.parentUid]] : todo.kept
        obj = single({ ...todo.body, parent_id: parent ?? null }, kept)
      } else {
        const cal = readCalendar(text, service.timezone, c.name)
        checkUid(userId, c, cal.uid, current?.records[0]?.id)
        obj = withName(home, c.kind, c.name, name, () => {
          if (!current) {
            const entries = [
              { record: owned(cal.master.body), properties: cal.master.kept },
              ...cal.overrides.map((o) => ({
                record: owned({ ...o.body, series_uid: cal.uid, occurrence_start: o.occurrence_start }),
                properties: [['UID', [], cal.uid] as StoredProperty, ...o.kept],
              })),
            ]
            const result = records.occurrences.importAll(userId, entries, { source: 'dav' })
            if (result.failed.length) throw result.failed[0]?.error
            const [main, ...rest] = result.created
            if (!main) throw new HttpError('VALIDATION_ERROR', 'the event was refused', { field: 'body', constraint: 'format' })
            const created = [main, ...rest.filter((r) => r.recurrence_id === main.id)]
            return { name, records: created, etag: objectEtag(created) }
          }
          const seriesId = (current.records[0] as ApiRecord).id
          for (const o of current.records.slice(1)) service.remove(userId, resource, o.id, { permanent: true })
          const series = service.update(userId, resource, seriesId, replacement(resource, current.records[0] as ApiRecord, cal.master.body))
          service.setProperties(userId, resource, seriesId, cal.master.kept)
          const made = cal.overrides.length
            ? service.importMany(
                userId,
                resource,
                cal.overrides.map((o) => ({
                  ...owned(o.body),
                  recurrence_id: seriesId,
                  occurrence_start: o.occurrence_start,
                  properties: o.kept,
                })),
                { source: 'dav' },
              )
            : { created: [], failed: [] }
          if (made.failed.length) throw made.failed[0]?.error
          const all = [series, ...made.created]
          return { name, records: all, etag: objectEtag(all) }
        })
      }
      // A card's own text is not served back when it carried a photo: its bytes (and their EXIF) are not what is stored.
      remember(userId, c, name, keepText ? text : null, obj)
      return { created: !current, etag: obj.etag }
    },

    /**
     * PUT of an Invitations object: the member's new PARTSTAT answers the invitation (the series,
     * and each overridden occurrence whose own changed); anything else changed is refused
     * (AttendeeChangeRefused), and nothing is written.
     */
    answerInvitation(userId: string, name: string, text: string, ifMatch?: string, ifNoneMatch?: string) {
      const c: Collection = { kind: 'event', name: INVITATIONS, invitations: true }
      const current = invitation(userId, name)
      if (!current) throw new AttendeeChangeRefused('Only the organizer adds an event to your invitations')
      checkPreconditions(current, ifMatch, ifNoneMatch)
      const main = current.records[0] as ApiRecord
      const calendar = String(main.calendar_name)
      const before = readCalendar(render(userId, c, current), service.timezone, calendar)
      const answers = answersIn(before, readCalendar(text, service.timezone, calendar), service.access.emailOf(userId) ?? '')
      answers.forEach((status, i) => {
        if (status) service.answer(userId, (current.records[i] as ApiRecord).id, status)
      })
      return { etag: (invitation(userId, name) as DavObject).etag }
    },

    /** DELETE: the record goes to the trash, as DELETE on the JSON API does; an invitation is declined (RFC 6638 3.2.6). */
    remove(userId: string, c: Collection, name: string, ifMatch?: string) {
      if (isBirthdays(c)) throw readOnly()
      if (c.kind === 'card' && groups.remove(bookOf(userId, c), name, ifMatch)) return
      const current = find(userId, c, name)
      if (!current) throw new HttpError('NOT_FOUND', 'No such object')
      checkPreconditions(current, ifMatch, undefined)
      if (c.invitations) return void service.answer(userId, (current.records[0] as ApiRecord).id, 'declined')
      service.remove(userId, RESOURCE[c.kind], (current.records[0] as ApiRecord).id)
    },
  }
}
