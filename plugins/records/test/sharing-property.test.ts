import fc from 'fast-check'
import t from 'tap'
import { household, type Member } from './sharing-app.js'

/**
 * Random sequences of share, access change, unshare and requests by random members, through the
 * HTTP API, against a model of what the shares allow at that moment: nobody reads, lists,
 * searches, changes, deletes, restores or creates beyond it, and everything the shares allow works.
 * One household serves every run: a run starts by ending every share (through the API) and reads
 * the records as they are from the database.
 */

type Resource = 'notes' | 'contacts' | 'events'
type Kind = 'calendar' | 'addressbook' | 'note'
type Access = 'read' | 'write'

interface Rec {
  resource: Resource
  id: string
  owner: string
  /** The collection: a calendar's name, '' for the address book, a note's own id. */
  target: string
  deleted: boolean
}

const KIND: Record<Resource, Kind> = { events: 'calendar', contacts: 'addressbook', notes: 'note' }
const CALENDARS = ['Family', 'Work']
const RUNS = 60

const action = fc.record({
  op: fc.constantFrom('share', 'share', 'access', 'unshare', 'get', 'list', 'list', 'search', 'update', 'delete', 'restore', 'create'),
  who: fc.nat(2),
  other: fc.nat(2),
  pick: fc.nat(1000),
  resource: fc.constantFrom<Resource>('notes', 'contacts', 'events'),
  access: fc.constantFrom<Access>('read', 'write'),
})

t.test('no member ever reads or writes beyond what the shares allow at that moment', async (t) => {
  const { app, members } = await household(t)
  const db = app.hearth.db
  // Every member starts with an event in each calendar, a note and a contact.
  for (const m of members) {
    for (const calendar of CALENDARS)
      await m.call('POST', '/events', { title: `zebra ${calendar}`, start_at: '2026-11-20T10:00:00Z', calendar_name: calendar })
    await m.call('POST', '/notes', { content: 'zebra note' })
    await m.call('POST', '/contacts', { display_name: 'Zebra contact' })
  }

  const stored = (): Rec[] => {
    const rows = (sql: string) => db.prepare(sql).all() as Array<{ id: string; user_id: string; target: string; deleted_at: string | null }>
    return [
      ...rows('SELECT id, user_id, calendar_name AS target, deleted_at FROM events').map((r) => ({ ...r, resource: 'events' as const })),
      ...rows("SELECT id, user_id, '' AS target, deleted_at FROM contacts").map((r) => ({ ...r, resource: 'contacts' as const })),
      ...rows('SELECT id, user_id, id AS target, deleted_at FROM notes').map((r) => ({ ...r, resource: 'notes' as const })),
    ].map((r) => ({ resource: r.resource, id: r.id, owner: r.user_id, target: r.target, deleted: r.deleted_at !== null }))
  }

  let runs = 0
  let requests = 0
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 30 }), async (actions) => {
      runs++
      for (const m of members) {
        for (const s of (await m.call('GET', '/shares?direction=mine&limit=200')).body.data) await m.call('DELETE', `/shares/${s.id}`)
      }
      const records = stored()
      /** owner|kind|target|with → the share's id and access. */
      const shares = new Map<string, { id: string; access: Access }>()
      const level = (caller: string, r: Pick<Rec, 'owner' | 'resource' | 'target'>): 'owner' | Access | null =>
        r.owner === caller ? 'owner' : (shares.get(`${r.owner}|${KIND[r.resource]}|${r.target}|${caller}`)?.access ?? null)
      const check = (ok: boolean, what: string) => {
        if (!ok) throw new Error(what)
      }
      const expectStatus = (status: number, want: number, what: string) =>
        check(status === want, `${what}: ${status}, the model says ${want}`)

      for (const a of actions) {
        requests++
        const me: Member = members[a.who] as Member
        const them: Member = members[a.other] as Member
        const pool = records.filter((r) => r.resource === a.resource)
        const rec = pool[a.pick % pool.length] as Rec
        const shareList = [...shares.entries()]
        switch (a.op) {
          case 'share': {
            const mine = records.filter((r) => r.owner === me.id && r.resource === a.resource)
            const target =
              a.resource === 'events'
                ? (CALENDARS[a.pick % 2] as string)
                : a.resource === 'notes'
                  ? (mine[a.pick % mine.length]?.id ?? '')
                  : ''
            const body =
              a.resource === 'events'
                ? { kind: 'calendar', name: target }
                : a.resource === 'notes'
                  ? { kind: 'note', note_id: target }
                  : { kind: 'addressbook' }
            const res = await me.call('POST', '/shares', { ...body, with: them.id, access: a.access })
            const key = `${me.id}|${KIND[a.resource]}|${target}|${them.id}`
            const want = them.id === me.id ? 400 : shares.has(key) ? 409 : 201
            expectStatus(res.status, want, `share ${key}`)
            if (res.status === 201) shares.set(key, { id: res.body.data.id, access: a.access })
            break
          }
          case 'access':
          case 'unshare': {
            const [key, share] = shareList[a.pick % Math.max(1, shareList.length)] ?? []
            if (!key || !share) break
            const [owner, , , sharee] = key.split('|')
            const res =
              a.op === 'access'
                ? await me.call('PATCH', `/shares/${share.id}`, { access: a.access })
                : await me.call('DELETE', `/shares/${share.id}`)
            expectStatus(res.status, me.id === owner ? 200 : me.id === sharee ? 403 : 404, `${a.op} ${key} by ${me.email}`)
            if (res.status === 200) {
              if (a.op === 'access') share.access = a.access
              else shares.delete(key)
            }
            break
          }
          case 'get': {
            const res = await me.call('GET', `/${rec.resource}/${rec.id}`)
            expectStatus(res.status, level(me.id, rec) !== null && !rec.deleted ? 200 : 404, `get ${rec.resource} by ${me.email}`)
            if (res.status === 200) check(res.body.data.owner_id === rec.owner, 'owner_id as stored')
            break
          }
          case 'list':
          case 'search': {
            const own = a.pick % 3 === 0
            const query = `${a.op === 'search' ? 'search=zebra&' : ''}${own ? 'owner=me&' : ''}limit=200`
            const res = await me.call('GET', `/${a.resource}?${query}`)
            expectStatus(res.status, 200, 'list')
            const want = pool
              .filter((r) => !r.deleted && (own ? r.owner === me.id : level(me.id, r) !== null))
              .map((r) => r.id)
              .sort()
            const got = (res.body.data as Array<{ id: string }>).map((r) => r.id).sort()
            check(
              JSON.stringify(got) === JSON.stringify(want),
              `${a.resource}?${query} by ${me.email}: ${got.length} listed, ${want.length} readable`,
            )
            check(res.body.meta.total === want.length, 'its total')
            break
          }
          case 'update': {
            const patch =
              rec.resource === 'events'
                ? { location: `room ${a.pick}` }
                : rec.resource === 'notes'
                  ? { pinned: a.pick % 2 === 0 }
                  : { company: `c${a.pick}` }
            const res = await me.call('PATCH', `/${rec.resource}/${rec.id}`, patch)
            const l = level(me.id, rec)
            expectStatus(
              res.status,
              l === null ? 404 : l === 'read' ? 403 : rec.deleted ? 404 : 200,
              `update ${rec.resource} by ${me.email} (${l})`,
            )
            break
          }
          case 'delete':
          case 'restore': {
            const res =
              a.op === 'delete'
                ? await me.call('DELETE', `/${rec.resource}/${rec.id}`)
                : await me.call('POST', `/${rec.resource}/${rec.id}/restore`)
            const l = level(me.id, rec)
            const noteOfAnother = rec.resource === 'notes' && l === 'write'
            const want = l === null ? 404 : l === 'read' || noteOfAnother ? 403 : a.op === 'delete' && rec.deleted ? 404 : 200
            expectStatus(res.status, want, `${a.op} ${rec.resource} by ${me.email} (${l})`)
            if (res.status === 200) rec.deleted = a.op === 'delete'
            break
          }
          case 'create': {
            // Into another member's collection: a calendar or the address book they may share for writing; never a note.
            const target = a.resource === 'events' ? (CALENDARS[a.pick % 2] as string) : ''
            const body =
              a.resource === 'events'
                ? { title: 'zebra new', start_at: '2026-11-21T10:00:00Z', calendar_name: target }
                : a.resource === 'notes'
                  ? { content: 'zebra new' }
                  : { display_name: 'Zebra new' }
            const res = await me.call('POST', `/${a.resource}`, { ...body, owner_id: them.id })
            const l = level(me.id, { owner: them.id, resource: a.resource, target })
            const want = l === 'owner' || (l === 'write' && a.resource !== 'notes') ? 201 : 403
            expectStatus(res.status, want, `create ${a.resource} in ${them.email}'s ${target} by ${me.email} (${l})`)
            if (res.status === 201)
              records.push({
                resource: a.resource,
                id: res.body.data.id,
                owner: them.id,
                target: a.resource === 'notes' ? res.body.data.id : target,
                deleted: false,
              })
            break
          }
        }
      }
    }),
    { numRuns: RUNS },
  )
  t.equal(runs, RUNS, `${RUNS} random sequences, ${requests} requests, all as the shares allowed`)
})
