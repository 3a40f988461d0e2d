import t from 'tap'
import { apiKey } from '../../../test/helper.js'
import { callerOf, importInto } from './records-app.js'
import { household } from './sharing-app.js'

/**
 * Attacks on sharing by the members of one household, each with their own credentials: what a
 * share lets a member reach must stop at the collection shared, whatever record an id, a parent or
 * a file names.
 */

const at = (day: number, hour = 18) => new Date(Date.UTC(2026, 10, day, hour)).toISOString()
const NOBODY = '00000000-0000-4000-8000-000000000000'

t.test('a subtask written through a shared task list cannot hang under the owner’s private tasks', async (t) => {
  const { members } = await household(t)
  const [parent, kid] = members
  await parent.call('POST', '/shares', { kind: 'tasklist', name: 'Home', with: kid.id, access: 'write' })
  const secret = (await parent.call('POST', '/tasks', { title: 'Buy the bike (hide it)', list_name: 'Private' })).body.data
  const chores = (await parent.call('POST', '/tasks', { title: 'Chores', list_name: 'Home' })).body.data

  const under = await kid.call('POST', '/tasks', { title: 'peek', list_name: 'Home', owner_id: parent.id, parent_id: secret.id })
  const nowhere = await kid.call('POST', '/tasks', { title: 'peek', list_name: 'Home', owner_id: parent.id, parent_id: NOBODY })
  t.equal(under.status, 400, 'a parent in a list not shared with the writer: refused')
  t.same(under.body.error, nowhere.body.error, 'exactly as a parent that does not exist (its existence is not told)')
  t.equal((await kid.call('PATCH', `/tasks/${chores.id}`, { parent_id: secret.id })).status, 400, 'nor moved under one by an update')
  t.equal((await parent.call('GET', `/tasks?parent_id=${secret.id}`)).body.meta.total, 0, 'the private task gained no subtask')

  const sub = await kid.call('POST', '/tasks', { title: 'Dishes', list_name: 'Home', owner_id: parent.id, parent_id: chores.id })
  t.equal(sub.status, 201, 'a parent in the shared list is fine')
  t.equal(
    (await parent.call('POST', '/tasks', { title: 'Mine', list_name: 'Private', parent_id: chores.id })).status,
    201,
    'and the owner links their own tasks across their lists as before',
  )
})

const ics = (...events: string[][]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    ...events.flatMap((e) => ['BEGIN:VEVENT', 'DTSTAMP:20261101T000000Z', ...e, 'END:VEVENT']),
    'END:VCALENDAR',
    '',
  ].join('\r\n')

t.test('an import links nothing into another member’s calendar or task list, shared or not', async (t) => {
  const { app, members } = await household(t)
  const [parent, kid, reader] = members
  await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.id, access: 'write' })
  await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: reader.id, access: 'read' })
  const piano = (
    await parent.call('POST', '/events', {
      title: 'Piano',
      start_at: at(18, 17),
      calendar_name: 'Family',
      recurrence: { freq: 'WEEKLY', count: 3 },
    })
  ).body.data
  const file = ics(
    ['UID:plain-1', 'DTSTART:20261120T100000Z', 'SUMMARY:Plain'],
    [`UID:${piano.id}@hearth`, 'RECURRENCE-ID:20261125T170000Z', 'DTSTART:20261125T190000Z', 'SUMMARY:Piano moved by an import'],
    [`UID:${piano.id}@hearth`, 'RECURRENCE-ID:20261202T170000Z', 'DTSTART:20261202T170000Z', 'STATUS:CANCELLED', 'SUMMARY:x'],
  )
  for (const [who, member] of [
    ['a reader', reader],
    ['a writer', kid],
  ] as const) {
    const done = await importInto({ app, token: member.token }, 'events', 'family.ics', file)
    t.equal(done.status, 200, `${who}: the file is answered entry by entry (not a 403 after the first entries were written)`)
    t.equal(done.data?.imported, 1, `${who}: the plain event is imported`)
    t.same(
      done.data?.failed?.map((f) => f.index),
      [1, 2],
      `${who}: both occurrences of the owner’s series are refused as a series never imported`,
    )
    const own = (await member.call('GET', '/events?owner=me')).body.data
    t.same(
      own.map((e: { title: string }) => e.title),
      ['Plain'],
      `${who}: no override of someone else’s series in their own calendar`,
    )
    await member.call('DELETE', `/events/${own[0].id}?permanent=true`)
  }
  const after = (await parent.call('GET', `/events/${piano.id}`)).body.data
  t.same(after.recurrence, { freq: 'WEEKLY', count: 3 }, 'the owner’s series is untouched (no exdate written by an import)')
  t.equal(after.etag, piano.etag)

  // A task file naming a parent that is someone else's (shared) task keeps the link as a line, as for any parent not found.
  await parent.call('POST', '/shares', { kind: 'tasklist', name: 'Home', with: kid.id, access: 'write' })
  const chores = (await parent.call('POST', '/tasks', { title: 'Chores', list_name: 'Home' })).body.data
  const todo = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VTODO',
    'UID:sub-1',
    'DTSTAMP:20261101T000000Z',
    'SUMMARY:Dishes',
    `RELATED-TO;RELTYPE=PARENT:${chores.id}@hearth`,
    'END:VTODO',
    'END:VCALENDAR',
    '',
  ].join('\r\n')
  const tasks = await importInto({ app, token: kid.token }, 'tasks', 'tasks.ics', todo)
  t.equal(tasks.data.imported, 1, 'the subtask is imported into the importer’s own list')
  const dishes = (await kid.call('GET', `/tasks/${tasks.data.ids[0]}`)).body.data
  t.match(dishes, { owner_id: kid.id, parent_id: null }, 'unlinked: the parent is not the importer’s')
})

t.test('an API key that reaches the records does not decide who else reads them', async (t) => {
  const { app, members } = await household(t)
  const [parent, kid, other] = members
  const made = (await kid.call('POST', '/shares', { kind: 'calendar', name: 'Diary', with: other.id, access: 'read' })).body.data
  for (const scope of ['agent', 'sync'] as const) {
    // An agent told by a web page it read to share the diary, a sync service's key: neither may.
    const key = callerOf(app)(await apiKey(app, parent.token, { scope, user_id: kid.id }))
    const share = await key('POST', '/shares', { kind: 'calendar', name: 'Diary', with: parent.id, access: 'write' })
    t.equal(share.status, 403, `${scope} key: no new share`)
    t.equal(share.body.error?.code, 'INSUFFICIENT_SCOPE')
    t.equal((await key('PATCH', `/shares/${made.id}`, { access: 'write' })).status, 403, `${scope} key: no access widened`)
    t.equal((await key('DELETE', `/shares/${made.id}`)).status, 403, `${scope} key: no share ended`)
    t.equal((await key('GET', '/shares')).status, 200, `${scope} key: the shares are still read`)
    t.equal((await key('GET', '/events')).status, 200, `${scope} key: and the records`)
  }
  t.equal((await kid.call('GET', '/shares')).body.data[0].access, 'read', 'the share is as its owner made it')
})
