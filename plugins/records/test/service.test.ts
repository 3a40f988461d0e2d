import { compileCheck } from '../../../core/validation.js'
import t from 'tap'
import { HttpError } from '../../../core/plugin-api.js'
import { createRecordsService } from '../service.js'
import { bench, recordEventsOf } from './records-app.js'

/** The service calls the import/export routes and the bench rely on, on the app's own database. */
async function setup(t: Parameters<typeof bench>[0]) {
  const b = await bench(t)
  const userId = (await b.call('POST', '/notes', { content: 'probe' })).body.data && b.events[0]?.userId
  const service = createRecordsService({ validator: compileCheck, db: b.app.hearth.db, events: b.app.hearth.events, now: () => b.clock.ms })
  return { ...b, service, userId: userId as string }
}

t.test('importMany writes the good entries in one go, keeps file metadata and reports bad ones by index', async (t) => {
  const { service, userId, call, events } = await setup(t)
  const result = service.importMany(
    userId,
    'notes',
    [
      {
        content: 'from a file',
        title: null,
        archived: true,
        source: 'obsidian',
        created_at: '2020-01-02T03:04:05Z',
        updated_at: '2021-01-01T00:00:00+01:00',
      },
      { title: 'no content' },
      'not an object',
      { content: 'x', archived: 'yes' },
      { content: 'plain', custom_fields: null, source: null },
    ],
    { source: 'import' },
  )
  t.equal(result.created.length, 2)
  t.same(
    result.failed.map((f) => [f.index, f.error.code, f.error.details]),
    [
      [1, 'VALIDATION_ERROR', { field: 'content', constraint: 'required' }],
      [2, 'VALIDATION_ERROR', { field: '(root)', constraint: 'type' }],
      [3, 'VALIDATION_ERROR', { field: 'archived', constraint: 'type' }],
    ],
  )
  t.ok(result.failed.every((f) => f.error instanceof HttpError))
  const [first, second] = result.created
  t.match(first, {
    title: 'from a file',
    archived: true,
    source: 'obsidian',
    created_at: '2020-01-02T03:04:05.000Z',
    updated_at: '2020-12-31T23:00:00.000Z',
  })
  t.equal(second?.source, 'import', 'the caller source when the entry has none')
  t.same((await call('GET', `/notes/${first?.id}`)).body.data, first, 'stored as returned')
  t.same(recordEventsOf(events).slice(1), [
    ['note.created', first?.id],
    ['note.created', second?.id],
  ])
  const contacts = service.importMany(userId, 'contacts', [{ display_name: '', first_name: 'Derived' }, { display_name: '' }])
  t.equal(contacts.created[0]?.display_name, 'Derived')
  t.same(contacts.failed[0]?.error.details, { field: 'display_name', constraint: 'required' })
})

t.test('listAll returns every record oldest first, deleted ones on request; create/get/list mirror the API', async (t) => {
  const { service, userId } = await setup(t)
  const a = service.create(userId, 'events', { title: 'A', start_at: '2026-11-20T10:00:00Z' }, { source: 'caldav' })
  const b = service.create(userId, 'events', { title: 'B', start_at: '2026-11-19T10:00:00Z' })
  service.remove(userId, 'events', b.id)
  t.same(
    service.listAll(userId, 'events').map((e) => e.id),
    [a.id],
  )
  t.same(
    service.listAll(userId, 'events', { includeDeleted: true }).map((e) => e.id),
    [a.id, b.id],
  )
  t.equal(service.get(userId, 'events', a.id).source, 'caldav')
  t.throws(() => service.get(userId, 'events', b.id), { code: 'NOT_FOUND' })
  t.same(
    service.list(userId, 'events', { include_deleted: true }).items.map((e) => e.title),
    ['B', 'A'],
  )
  t.throws(() => service.create(userId, 'events', { title: 'C' }), {
    code: 'VALIDATION_ERROR',
    details: { field: 'start_at', constraint: 'required' },
  })
})

t.test('custom-field keys that look like object internals stay plain keys', async (t) => {
  const { service, userId } = await setup(t)
  const fields = JSON.parse('{"__proto__": {"polluted": true}, "constructor": "c"}')
  const note = service.create(userId, 'notes', { content: 'x', custom_fields: fields })
  t.same(Object.keys(note.custom_fields as object).sort(), ['__proto__', 'constructor'])
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution')
  const again = service.get(userId, 'notes', note.id)
  t.same(JSON.parse(JSON.stringify(again.custom_fields)), JSON.parse('{"__proto__": {"polluted": true}, "constructor": "c"}'))
})
