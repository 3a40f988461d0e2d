import t from 'tap'
import { bench, recordEventsOf } from './records-app.js'

/** The soft-delete state table (api.md) and custom-field merge, for each resource. */
const resources = [
  { path: 'notes', singular: 'note', body: { content: 'state table' }, change: { pinned: true } },
  { path: 'contacts', singular: 'contact', body: { display_name: 'State Table' }, change: { company: 'Acme' } },
  { path: 'events', singular: 'event', body: { title: 'State table', start_at: '2026-11-20T10:00:00Z' }, change: { location: 'Here' } },
  { path: 'tasks', singular: 'task', body: { title: 'State table' }, change: { priority: 1 } },
]

for (const r of resources) {
  t.test(`${r.path}: active → deleted → restored → permanently removed, with events`, async (t) => {
    const { call, events, clock } = await bench(t)
    const created = (await call('POST', `/${r.path}`, r.body)).body.data
    const id = created.id
    const listed = async (qs = '') => (await call('GET', `/${r.path}?${qs}`)).body.data.map((x: { id: string }) => x.id)

    clock.advance(60_000)
    const patched = await call('PATCH', `/${r.path}/${id}`, r.change)
    t.equal(patched.status, 200)
    t.equal(patched.body.data.updated_at, new Date(clock.ms).toISOString(), 'PATCH bumps updated_at')

    clock.advance(60_000)
    const deleted = await call('DELETE', `/${r.path}/${id}`)
    t.equal(deleted.status, 200)
    t.equal(deleted.body.data.deleted_at, new Date(clock.ms).toISOString(), 'soft delete answers the record with deleted_at')
    t.equal((await call('GET', `/${r.path}/${id}`)).status, 404, 'GET by id: 404 once soft-deleted')
    t.equal((await call('GET', `/${r.path}/${id}`)).body.error.code, 'NOT_FOUND')
    t.equal((await call('GET', `/${r.path}/${id}?include_deleted=true`)).body.data.deleted_at, deleted.body.data.deleted_at)
    t.same(await listed(), [], 'left out of normal listings')
    t.same(await listed('include_deleted=true'), [id])
    t.same(await listed('only_deleted=true'), [id], 'trash view')
    t.equal((await call('PATCH', `/${r.path}/${id}`, r.change)).status, 404, 'a deleted record cannot be patched')
    t.equal((await call('PATCH', `/${r.path}/${id}/custom`, { a: 1 })).status, 404)
    t.equal((await call('DELETE', `/${r.path}/${id}`)).status, 404, 'soft-deleting twice: 404')

    const restored = await call('POST', `/${r.path}/${id}/restore`)
    t.equal(restored.status, 200)
    t.equal(restored.body.data.deleted_at, null)
    t.same(await listed(), [id], 'back in listings')
    t.same(await listed('only_deleted=true'), [])
    const again = await call('POST', `/${r.path}/${id}/restore`)
    t.equal(again.status, 200, 'restoring an active record is a no-op')

    await call('DELETE', `/${r.path}/${id}`)
    const gone = await call('DELETE', `/${r.path}/${id}?permanent=true`)
    t.equal(gone.status, 200, 'a soft-deleted record can be removed for good')
    t.same(gone.body.data, { id })
    t.equal((await call('GET', `/${r.path}/${id}?include_deleted=true`)).status, 404)
    t.equal((await call('POST', `/${r.path}/${id}/restore`)).status, 404, 'nothing to restore')
    t.equal((await call('DELETE', `/${r.path}/${id}?permanent=true`)).status, 404)

    const active = (await call('POST', `/${r.path}`, r.body)).body.data
    t.equal((await call('DELETE', `/${r.path}/${active.id}?permanent=true`)).status, 200, 'an active record can be removed for good')
    t.equal((await call('DELETE', `/${r.path}/${active.id}?permanent=maybe`)).body.error.code, 'INVALID_QUERY')

    const s = r.singular
    t.same(recordEventsOf(events), [
      [`${s}.created`, id],
      [`${s}.updated`, id],
      [`${s}.deleted`, id],
      [`${s}.restored`, id],
      [`${s}.deleted`, id],
      [`${s}.deleted`, id],
      [`${s}.created`, active.id],
      [`${s}.deleted`, active.id],
    ])
    const byType = events.filter((e) => e.id === id)
    t.equal(
      byType[2]?.data && (byType[2].data as { deleted_at: string }).deleted_at,
      deleted.body.data.deleted_at,
      'soft delete event carries the record',
    )
    t.same(byType[3]?.data, restored.body.data, 'restore event carries the record')
    t.same(
      byType[5]?.data,
      {
        id,
        owner_id: created.owner_id,
        // An event's attendees hear of its removal too: the message names them.
        ...(r.path === 'events' ? { calendar_name: 'default', attendees: [] } : r.path === 'tasks' ? { list_name: 'default' } : {}),
      },
      'permanent delete event carries { id, owner_id }, the calendar or list it was in, and an event its attendees',
    )
    t.ok(
      events.every((e) => e.userId),
      'every event names its user',
    )
  })

  t.test(`${r.path}: custom fields merge shallowly (keep, add, null removes)`, async (t) => {
    const { call, events } = await bench(t)
    const created = (
      await call('POST', `/${r.path}`, { ...r.body, custom_fields: { keep: 'k', drop: 1, nested: { a: 1 }, nothing: null } })
    ).body.data
    t.same(created.custom_fields, { keep: 'k', drop: 1, nested: { a: 1 } }, 'null values are not stored on create')
    const merged = await call('PATCH', `/${r.path}/${created.id}/custom`, { drop: null, added: [1, 2], nested: { b: 2 }, absent: null })
    t.equal(merged.status, 200)
    t.same(merged.body.data.custom_fields, { keep: 'k', nested: { b: 2 }, added: [1, 2] }, 'kept, replaced shallowly, added, removed')
    t.equal(events.at(-1)?.type, `${r.singular}.updated`)
    const viaPatch = await call('PATCH', `/${r.path}/${created.id}`, { custom_fields: { keep: null, more: true } })
    t.same(viaPatch.body.data.custom_fields, { nested: { b: 2 }, added: [1, 2], more: true }, 'PATCH custom_fields merges the same way')
    const cleared = await call('PATCH', `/${r.path}/${created.id}`, { custom_fields: null })
    t.equal(cleared.body.data.custom_fields, null, 'custom_fields: null clears them all')
    const fresh = await call('PATCH', `/${r.path}/${created.id}/custom`, { x: 'y' })
    t.same(fresh.body.data.custom_fields, { x: 'y' })
    t.same((await call('GET', `/${r.path}/${created.id}`)).body.data.custom_fields, { x: 'y' }, 'stored')
  })
}
