import { join } from 'node:path'
import t from 'tap'
import { openDatabase } from '../../../core/db/sqlite.js'
import { household } from './sharing-app.js'

/**
 * Sharing through the HTTP API: the shares routes and their codes, then what a share lets its
 * member read and write (and what it does not), and that unsharing takes it all back at once.
 */

const at = (day: number, hour = 18) => new Date(Date.UTC(2026, 10, day, hour)).toISOString()

t.test('the shares API: answers, codes and who may manage a share', async (t) => {
  const { members, events } = await household(t)
  const [parent, kid, other] = members
  const made = await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.email.toUpperCase(), access: 'read' })
  t.equal(made.status, 201, 'shared by email, whatever its case')
  const share = made.body.data
  t.match(share, { kind: 'calendar', name: 'Family', note_id: null, owner_id: parent.id, with_user_id: kid.id, access: 'read' })
  t.ok(share.id && share.created_at)

  t.equal(
    (await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.id, access: 'write' })).status,
    409,
    'twice: 409',
  )
  const self = await parent.call('POST', '/shares', { kind: 'addressbook', with: parent.id, access: 'read' })
  t.equal(self.status, 400, 'with oneself: 400')
  t.match(self.body.error, { code: 'VALIDATION_ERROR', details: { field: 'with' } })
  const stranger = await parent.call('POST', '/shares', { kind: 'addressbook', with: 'nobody@example.test', access: 'read' })
  t.equal(stranger.status, 404, 'a non-member: 404')
  t.equal(stranger.body.error.code, 'NOT_FOUND')
  t.equal(
    (await parent.call('POST', '/shares', { kind: 'calendar', with: kid.id, access: 'read' })).status,
    400,
    'a calendar needs its name',
  )
  t.equal((await parent.call('POST', '/shares', { kind: 'note', with: kid.id, access: 'read' })).status, 400, 'a note needs note_id')
  t.equal(
    (await parent.call('POST', '/shares', { kind: 'addressbook', name: 'x', with: kid.id, access: 'read' })).status,
    400,
    'no name for the address book',
  )
  t.equal((await parent.call('POST', '/shares', { kind: 'album', with: kid.id, access: 'read' })).status, 400, 'an unknown kind')
  t.equal((await parent.call('POST', '/shares', { kind: 'tasklist', name: 'Groceries', with: kid.id, access: 'write' })).status, 201)

  // A note: only its owner shares it.
  const note = (await parent.call('POST', '/notes', { content: 'Shopping list' })).body.data
  const noteShare = (await parent.call('POST', '/shares', { kind: 'note', note_id: note.id, with: kid.id, access: 'write' })).body.data
  t.match(noteShare, { kind: 'note', name: null, note_id: note.id })
  const reshare = await kid.call('POST', '/shares', { kind: 'note', note_id: note.id, with: other.id, access: 'read' })
  t.equal(reshare.status, 403, 'a sharee sharing the note further: 403')
  t.equal(reshare.body.error.code, 'FORBIDDEN')
  t.equal(
    (await other.call('POST', '/shares', { kind: 'note', note_id: note.id, with: kid.id, access: 'read' })).status,
    404,
    'a note one cannot read: 404',
  )

  const mine = await parent.call('GET', '/shares?direction=mine')
  t.equal(mine.body.meta.total, 3)
  t.same(
    mine.body.data.map((s: { kind: string }) => s.kind),
    ['calendar', 'tasklist', 'note'],
  )
  const withMe = await kid.call('GET', '/shares?direction=with_me')
  t.equal(withMe.body.meta.total, 3)
  t.equal((await kid.call('GET', '/shares')).body.meta.total, 0, 'mine by default: the kid shares nothing')
  t.equal((await other.call('GET', '/shares?direction=with_me')).body.meta.total, 0)
  t.equal((await kid.call('GET', '/shares?direction=theirs')).status, 400)

  t.equal((await kid.call('PATCH', `/shares/${share.id}`, { access: 'write' })).status, 403, 'its sharee changes it: 403')
  t.equal((await kid.call('DELETE', `/shares/${share.id}`)).status, 403, 'its sharee ends it: 403')
  t.equal((await other.call('PATCH', `/shares/${share.id}`, { access: 'write' })).status, 404, 'a third member: 404')
  t.equal((await other.call('DELETE', `/shares/${share.id}`)).status, 404)
  const changed = await parent.call('PATCH', `/shares/${share.id}`, { access: 'write' })
  t.equal(changed.status, 200)
  t.equal(changed.body.data.access, 'write')
  t.equal((await parent.call('PATCH', `/shares/${share.id}`, { access: 'owner' })).status, 400)
  const ended = await parent.call('DELETE', `/shares/${share.id}`)
  t.equal(ended.status, 200)
  t.equal(ended.body.data.id, share.id)
  t.equal((await parent.call('DELETE', `/shares/${share.id}`)).status, 404, 'gone')

  const told = events.filter((e) => e.type.startsWith('share.') && e.id === share.id)
  t.same(
    told.map((e) => `${e.type} ${e.userId === parent.id ? 'owner' : e.userId === kid.id ? 'sharee' : '?'}`),
    [
      'share.created owner',
      'share.created sharee',
      'share.updated owner',
      'share.updated sharee',
      'share.deleted owner',
      'share.deleted sharee',
    ],
    'both parties hear of each change',
  )
})

t.test('a calendar shared for reading: listed, ranged with occurrences, searched; never written', async (t) => {
  const { members } = await household(t)
  const [parent, kid, other] = members
  const dinner = (await parent.call('POST', '/events', { title: 'Family dinner', start_at: at(20), calendar_name: 'Family' })).body.data
  const swim = (
    await parent.call('POST', '/events', {
      title: 'Swimming lesson',
      start_at: at(18, 16),
      calendar_name: 'Family',
      recurrence: { freq: 'WEEKLY', count: 4 },
    })
  ).body.data
  const work = (await parent.call('POST', '/events', { title: 'Budget review', start_at: at(20, 9), calendar_name: 'Work' })).body.data
  const own = (await kid.call('POST', '/events', { title: 'Football', start_at: at(21, 10) })).body.data
  t.equal(dinner.owner_id, parent.id, 'records carry owner_id')
  await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.id, access: 'read' })

  const listed = await kid.call('GET', '/events?sort=start_at')
  t.same(
    listed.body.data.map((e: { id: string }) => e.id).sort(),
    [dinner.id, swim.id, own.id].sort(),
    'own and the shared calendar, not Work',
  )
  t.equal(listed.body.meta.total, 3)
  t.equal(listed.body.data.find((e: { id: string }) => e.id === dinner.id).owner_id, parent.id)
  const ranged = await kid.call('GET', `/events?from=${at(17, 0)}&to=${at(30, 0)}`)
  t.equal(
    ranged.body.data.filter((e: { recurrence_id: string | null }) => e.recurrence_id === swim.id).length,
    2,
    'the shared series expands',
  )
  t.equal(ranged.body.meta.total, 4)
  t.same(
    (await kid.call('GET', '/events?owner=me')).body.data.map((e: { id: string }) => e.id),
    [own.id],
    '?owner=me keeps your own',
  )
  t.equal((await kid.call('GET', '/events?search=dinner')).body.meta.total, 1, 'search finds the shared event')
  t.equal((await kid.call('GET', '/events?search=budget')).body.meta.total, 0, 'and not the unshared one')
  t.equal((await kid.call('GET', `/events/${dinner.id}`)).status, 200)
  t.equal((await kid.call('GET', `/events/${work.id}`)).status, 404, 'another calendar of the same owner: 404')
  t.equal((await other.call('GET', `/events/${dinner.id}`)).status, 404, 'a member it is not shared with: 404')
  t.equal((await kid.call('GET', `/events?after=${dinner.id}&sort=start_at`)).status, 200, 'keyset paging from a shared record')

  for (const [method, path, body] of [
    ['PATCH', `/events/${dinner.id}`, { title: 'Pizza' }],
    ['PATCH', `/events/${dinner.id}/custom`, { x: 1 }],
    ['DELETE', `/events/${dinner.id}`, undefined],
    ['DELETE', `/events/${dinner.id}?permanent=true`, undefined],
    ['POST', `/events/${dinner.id}/restore`, undefined],
    ['PATCH', `/events/${swim.id}?scope=this&occurrence_start=${at(25, 16)}`, { title: 'Moved' }],
    ['DELETE', `/events/${swim.id}?scope=following&occurrence_start=${at(25, 16)}`, undefined],
    ['POST', '/events', { title: 'Sneaky', start_at: at(22), calendar_name: 'Family', owner_id: parent.id }],
  ] as Array<[string, string, unknown]>) {
    const res = await kid.call(method, path, body)
    t.equal(res.status, 403, `${method} ${path.split('?')[0]} on a read share: 403`)
    t.equal(res.body.error.code, 'FORBIDDEN')
  }
  t.equal((await parent.call('GET', `/events/${dinner.id}`)).body.data.title, 'Family dinner', 'nothing changed')
})

t.test('an export holds what is shared with you', async (t) => {
  const { app, members } = await household(t)
  const [parent, kid] = members
  await parent.call('POST', '/events', { title: 'Family dinner', start_at: at(20), calendar_name: 'Family' })
  await parent.call('POST', '/events', { title: 'Budget review', start_at: at(20, 9), calendar_name: 'Work' })
  await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.id, access: 'read' })
  const res = await app.inject({ method: 'GET', url: '/api/v1/events/export', headers: { authorization: `Bearer ${kid.token}` } })
  t.equal(res.statusCode, 200)
  t.match(res.body, /SUMMARY:Family dinner/)
  t.notMatch(res.body, /Budget review/)
})

t.test('a calendar shared for writing: create, update, move, delete and restore in it, and no further', async (t) => {
  const { members } = await household(t)
  const [parent, kid] = members
  await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.id, access: 'write' })
  const made = await kid.call('POST', '/events', { title: 'Picnic', start_at: at(22), calendar_name: 'Family', owner_id: parent.id })
  t.equal(made.status, 201, 'a new record in the shared calendar names owner_id')
  const picnic = made.body.data
  t.equal(picnic.owner_id, parent.id)
  t.equal((await parent.call('GET', `/events/${picnic.id}`)).body.data.title, 'Picnic', 'the owner sees it')
  t.equal((await parent.call('GET', '/events?owner=me')).body.meta.total, 1, 'it is the owner’s own')
  t.equal((await kid.call('GET', '/events?owner=me')).body.meta.total, 0)
  t.equal(
    (await kid.call('POST', '/events', { title: 'Elsewhere', start_at: at(22), calendar_name: 'Work', owner_id: parent.id })).status,
    403,
    'into a calendar not shared: 403',
  )
  t.equal((await kid.call('PATCH', `/events/${picnic.id}`, { title: 'Picnic at the lake' })).body.data.title, 'Picnic at the lake')
  t.equal(
    (await kid.call('PATCH', `/events/${picnic.id}`, { calendar_name: 'Work' })).status,
    403,
    'moving it out of the shared calendar: 403',
  )
  const series = (
    await kid.call('POST', '/events', {
      title: 'Piano',
      start_at: at(18, 17),
      calendar_name: 'Family',
      owner_id: parent.id,
      recurrence: { freq: 'WEEKLY', count: 3 },
    })
  ).body.data
  const moved = await kid.call('PATCH', `/events/${series.id}?scope=this&occurrence_start=${at(25, 17)}`, { title: 'Piano (moved)' })
  t.equal(moved.status, 200, 'one occurrence changed by the sharee')
  t.equal(moved.body.data.owner_id, parent.id, 'the override is the owner’s')
  t.equal((await kid.call('DELETE', `/events/${picnic.id}`)).status, 200)
  t.equal((await kid.call('POST', `/events/${picnic.id}/restore`)).status, 200)
  t.equal((await kid.call('DELETE', `/events/${picnic.id}?permanent=true`)).status, 200)
  t.equal((await parent.call('GET', `/events/${picnic.id}`)).status, 404)
})

t.test('a note shared for writing is edited by its sharee and deleted only by its owner', async (t) => {
  const { members, events } = await household(t)
  const [parent, kid, other] = members
  const note = (await parent.call('POST', '/notes', { content: 'Groceries: milk' })).body.data
  const second = (await parent.call('POST', '/notes', { content: 'Private diary' })).body.data
  await parent.call('POST', '/shares', { kind: 'note', note_id: note.id, with: kid.id, access: 'write' })
  t.same(
    (await kid.call('GET', '/notes')).body.data.map((n: { id: string }) => n.id),
    [note.id],
    'the shared note only',
  )
  t.equal((await kid.call('PATCH', `/notes/${note.id}`, { content: 'Groceries: milk, eggs' })).status, 200)
  t.equal((await kid.call('POST', `/notes/${note.id}/archive`)).status, 200, 'archiving is an edit')
  t.equal((await kid.call('POST', `/notes/${note.id}/unarchive`)).status, 200)
  t.equal((await kid.call('GET', `/notes/${second.id}`)).status, 404)
  t.equal((await kid.call('DELETE', `/notes/${note.id}`)).status, 403, 'its sharee deletes it: 403')
  t.equal((await kid.call('DELETE', `/notes/${note.id}?permanent=true`)).status, 403)
  t.equal((await kid.call('POST', '/notes', { content: 'mine?', owner_id: parent.id })).status, 403, 'no new note in the owner’s name')
  t.equal((await other.call('GET', `/notes/${note.id}`)).status, 404)
  t.equal((await parent.call('GET', `/notes/${note.id}`)).body.data.content, 'Groceries: milk, eggs', 'the owner reads the edit')

  const before = events.length
  t.equal((await parent.call('DELETE', `/notes/${note.id}?permanent=true`)).status, 200, 'its owner erases it')
  const after = events.slice(before).map((e) => e.type)
  t.same(after, ['note.deleted', 'share.deleted', 'share.deleted'], 'its shares go with it')
  t.equal((await kid.call('GET', '/shares?direction=with_me')).body.meta.total, 0)
})

t.test('the address book shared; unsharing takes everything back at once', async (t) => {
  const { members } = await household(t)
  const [parent, kid] = members
  const grandma = (await parent.call('POST', '/contacts', { display_name: 'Grandma', phones: [{ number: '+33 1 23 45 67 89' }] })).body.data
  const share = (await parent.call('POST', '/shares', { kind: 'addressbook', with: kid.id, access: 'read' })).body.data
  t.equal((await kid.call('GET', '/contacts')).body.meta.total, 1)
  t.equal((await kid.call('GET', '/contacts?search=grandma')).body.meta.total, 1)
  t.equal((await kid.call('GET', `/contacts/${grandma.id}`)).status, 200)
  t.equal((await kid.call('PATCH', `/contacts/${grandma.id}`, { company: 'x' })).status, 403)
  await parent.call('PATCH', `/shares/${share.id}`, { access: 'write' })
  t.equal((await kid.call('PATCH', `/contacts/${grandma.id}`, { company: 'Retired' })).status, 200, 'write once the access changes')
  await parent.call('DELETE', `/shares/${share.id}`)
  t.equal((await kid.call('GET', '/contacts')).body.meta.total, 0, 'gone from the list at once (the list was cached)')
  t.equal((await kid.call('GET', '/contacts?search=grandma')).body.meta.total, 0)
  t.equal((await kid.call('GET', `/contacts/${grandma.id}`)).status, 404, 'and by id (the record was cached)')
  t.equal((await kid.call('PATCH', `/contacts/${grandma.id}`, { company: 'y' })).status, 404)
})

t.test('an owner’s change reaches the sharee’s cached lists', async (t) => {
  const { members } = await household(t)
  const [parent, kid] = members
  await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.id, access: 'read' })
  t.equal((await kid.call('GET', '/events')).body.meta.total, 0)
  const e = (await parent.call('POST', '/events', { title: 'Movie night', start_at: at(21), calendar_name: 'Family' })).body.data
  t.equal((await kid.call('GET', '/events')).body.meta.total, 1, 'a new record of the shared calendar')
  await parent.call('PATCH', `/events/${e.id}`, { calendar_name: 'Private' })
  t.equal((await kid.call('GET', '/events')).body.meta.total, 0, 'moved out of it')
  await parent.call('PATCH', `/events/${e.id}`, { calendar_name: 'Family' })
  t.equal((await kid.call('GET', '/events?search=movie')).body.meta.total, 1, 'and back')

  // Unshared, changed meanwhile, shared again just as before: the list the kid had then is not served again.
  const share = (await parent.call('GET', '/shares')).body.data[0]
  t.equal((await kid.call('GET', '/events')).body.meta.total, 1)
  await parent.call('DELETE', `/shares/${share.id}`)
  await parent.call('POST', '/events', { title: 'While unshared', start_at: at(22), calendar_name: 'Family' })
  await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.id, access: 'read' })
  t.equal((await kid.call('GET', '/events')).body.meta.total, 2, 'shared again: what was added meanwhile is there')
})

t.test('a search finds exactly the matches a member may read, whatever the words name', async (t) => {
  const { app, members } = await household(t)
  const [parent, kid, other] = members
  // Every member writes "quarterly" into each resource; the kid may read some of the others' through shares and an invitation.
  const make = async (m: (typeof members)[number], tag: string) => ({
    note: (await m.call('POST', '/notes', { title: `Quarterly ${tag}`, content: 'numbers' })).body.data.id as string,
    privateNote: (await m.call('POST', '/notes', { content: `quarterly ${tag} private` })).body.data.id as string,
    event: (await m.call('POST', '/events', { title: `Quarterly ${tag}`, start_at: at(10), calendar_name: 'Family' })).body.data
      .id as string,
    privateEvent: (await m.call('POST', '/events', { title: `Quarterly ${tag}`, start_at: at(11), calendar_name: 'Private' })).body.data
      .id as string,
    contact: (await m.call('POST', '/contacts', { display_name: `Ann ${tag}`, company: 'Quarterly Ltd' })).body.data.id as string,
    task: (await m.call('POST', '/tasks', { title: `Quarterly ${tag}`, list_name: 'Chores' })).body.data.id as string,
  })
  const p = await make(parent, 'parent')
  const k = await make(kid, 'kid')
  const o = await make(other, 'other')
  // The kid's view holds a minority of the notes and contacts: the index is asked for its owners' (list.ts).
  for (let i = 0; i < 8; i++) {
    await other.call('POST', '/notes', { content: `filler ${i}` })
    await other.call('POST', '/contacts', { display_name: `Filler ${i}` })
  }
  const invite = await other.call('POST', '/events', {
    title: 'Quarterly invitation',
    start_at: at(12),
    calendar_name: 'Private',
    attendees: [{ email: kid.email }],
  })
  const noteShare = (await parent.call('POST', '/shares', { kind: 'note', note_id: p.note, with: kid.id, access: 'read' })).body.data
  for (const [kind, name] of [
    ['calendar', 'Family'],
    ['addressbook', undefined],
    ['tasklist', 'Chores'],
  ] as const) {
    t.equal((await parent.call('POST', '/shares', { kind, name, with: kid.id, access: 'read' })).status, 201)
  }

  const found = async (resource: string, search: string, extra = '') => {
    const res = await kid.call('GET', `/${resource}?search=${encodeURIComponent(search)}&limit=100${extra}`)
    t.equal(res.status, 200, `${resource} ${search}`)
    t.equal(res.body.meta.total, res.body.data.length, 'the total counts what is listed')
    return (res.body.data as Array<{ id: string }>).map((r) => r.id).sort()
  }
  const expected = {
    notes: [k.note, k.privateNote, p.note],
    events: [k.event, k.privateEvent, p.event, invite.body.data.id],
    contacts: [k.contact, p.contact],
    tasks: [k.task, p.task],
  }
  for (const [resource, ids] of Object.entries(expected)) {
    t.same(await found(resource, 'quarterly'), ids.sort(), `${resource}: their own and what is shared with them`)
    t.same(await found(resource, 'quart'), ids.sort(), `${resource}: a prefix too`)
    t.same(await found(resource, 'quarterly', '&sort=created_at'), ids.sort(), `${resource}: sorted rather than ranked`)
  }
  t.same(await found('notes', 'quarterly', '&owner=me'), [k.note, k.privateNote].sort(), 'owner=me: their own only')
  t.same(await found('notes', 'other'), [], "another member's words find nothing of theirs")

  // The owner column's name and terms, as a member could guess them, find nothing at all.
  const term = (id: string) => `u${Buffer.from(id, 'utf8').toString('hex')}`
  for (const words of [
    term(kid.id),
    term(other.id),
    `owner:${term(other.id)}`,
    `{owner} : ${term(kid.id)}`,
    `owner:quarterly`,
    'u',
    term(kid.id).slice(0, 6),
    `quarterly OR ${term(other.id)}`,
  ]) {
    for (const resource of Object.keys(expected)) {
      const ids = await found(resource, words)
      const allowed = new Set<string>(expected[resource as keyof typeof expected])
      t.ok(
        ids.every((id) => allowed.has(id)),
        `${resource} ${words}: nothing beyond what they may read`,
      )
      if (!words.includes('quarterly')) t.same(ids, [], `${resource} ${words}: no record matches an owner term`)
    }
  }
  t.notOk((await found('notes', 'private')).includes(o.privateNote))
  t.notOk((await found('events', 'quarterly')).includes(o.privateEvent))

  // Unshared: gone from the next search; shared again: back.
  await parent.call('DELETE', `/shares/${noteShare.id}`)
  t.same(await found('notes', 'quarterly'), [k.note, k.privateNote].sort(), 'the unshared note leaves the search')
  await parent.call('POST', '/shares', { kind: 'note', note_id: p.note, with: kid.id, access: 'read' })
  t.same(await found('notes', 'quarterly'), expected.notes.sort(), 'shared again')
  // A member sharing nothing with the kid before now does: their matches join the search.
  const otherShare = (await other.call('POST', '/shares', { kind: 'note', note_id: o.note, with: kid.id, access: 'read' })).body.data
  t.same(await found('notes', 'quarterly'), [...expected.notes, o.note].sort(), 'a new owner in the view')
  await other.call('DELETE', `/shares/${otherShare.id}`)

  // A record changing owner (no route does it; a repair by hand could) is searched as its new owner's.
  const db = openDatabase(join(app.dataDir, 'hearth.db'))
  t.teardown(() => db.close())
  db.prepare('UPDATE notes SET user_id = ? WHERE id = ?').run(kid.id, o.privateNote)
  t.same(await found('notes', 'private'), [k.privateNote, o.privateNote].sort(), "the kid's now")
  const others = await other.call('GET', '/notes?search=private')
  t.same(others.body.data, [], 'and no longer its former owner’s')
})
