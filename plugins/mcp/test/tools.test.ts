import t from 'tap'
import { auth, build, owner, apiKey } from '../../../test/helper.js'
import { TestClient } from '../../realtime/test/ws-client.js'
import { agentSetup, call, connectHttp, listening } from './mcp-client.js'

/**
 * The official MCP SDK client over streamable HTTP: every tool listed and
 * called, each effect checked through the REST API and the realtime events.
 */
t.test('the SDK client lists every tool and each call acts like its REST route', async (t) => {
  const app = await build(t)
  const base = await listening(app)
  const o = await owner(app)
  const key = await apiKey(app, o.token, { scope: 'agent' })
  const client = await connectHttp(base, key)
  t.teardown(() => client.close())
  const ws = await TestClient.open(`${base.replace('http', 'ws')}/api/v1/ws`, auth(o.token))
  t.teardown(() => ws.close())
  const rest = async (url: string) => app.inject({ method: 'GET', url: `/api/v1${url}`, headers: auth(o.token) })
  const event = (type: string, id: string) => ws.next((m) => m.type === type && m.id === id)

  t.equal(client.getServerVersion()?.name, 'hearth')
  const { tools } = await client.listTools()
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const expected = ['search', 'calendar', 'due_tasks']
  for (const one of ['note', 'contact', 'event', 'task']) {
    expected.push(`get_${one}`, `create_${one}`, `update_${one}`, `update_${one}_custom_fields`, `delete_${one}`, `restore_${one}`)
  }
  expected.push('archive_note', 'unarchive_note', 'complete_task', 'reopen_task')
  t.same([...byName.keys()].sort(), expected.sort(), 'one tool per records operation, plus search, calendar and due_tasks')
  t.same(byName.get('get_note')?.annotations, { title: 'Get a note', readOnlyHint: true, openWorldHint: false })
  t.equal(byName.get('delete_event')?.annotations?.destructiveHint, true, 'DELETE is destructive')
  t.equal(byName.get('update_contact')?.annotations?.destructiveHint, true, 'PATCH overwrites')
  t.equal(byName.get('create_note')?.annotations?.destructiveHint, false, 'POST adds')
  t.same(byName.get('create_note')?.inputSchema.required, ['content'], 'the create body schema of the route: content required')
  t.ok(byName.get('update_event')?.inputSchema.properties?.recurrence, 'the PATCH body of events, recurrence included')
  t.ok(byName.get('update_event')?.inputSchema.properties?.occurrence_start, 'and its query (one occurrence of a series)')

  // Notes: create, get (compact and full), update, custom fields, archive, search, delete, restore.
  const created = await call(client, 'create_note', { content: '# Groceries\nmilk, eggs, saffron', tags: ['home'] })
  const noteId = created.structuredContent?.id as string
  t.same(created.structuredContent, { ...created.structuredContent, title: 'Groceries', tags: ['home'] }, 'compact answer')
  t.notOk('content' in (created.structuredContent ?? {}), 'compact by default: no content')
  t.equal(JSON.parse(created.content[0]?.text ?? '{}').id, noteId, 'the same JSON as text')
  t.equal((await rest(`/notes/${noteId}`)).json().data.content, '# Groceries\nmilk, eggs, saffron', 'stored through REST')
  t.equal((await event('note.created', noteId)).data.title, 'Groceries', 'note.created on the WebSocket')

  const full = await call(client, 'get_note', { id: noteId, format: 'full' })
  t.equal(full.structuredContent?.content, '# Groceries\nmilk, eggs, saffron', 'format full: the whole record')
  t.equal((await call(client, 'get_note', { id: noteId })).structuredContent?.snippet, '# Groceries\nmilk, eggs, saffron')

  await call(client, 'update_note', { id: noteId, title: 'Shopping', pinned: true })
  t.match((await rest(`/notes/${noteId}`)).json().data, { title: 'Shopping', pinned: true })
  await event('note.updated', noteId)
  await call(client, 'update_note_custom_fields', { id: noteId, custom_fields: { shop: 'market', aisle: 4 } })
  await call(client, 'update_note_custom_fields', { id: noteId, custom_fields: { aisle: null } })
  t.same((await rest(`/notes/${noteId}`)).json().data.custom_fields, { shop: 'market' }, 'merged, null removes')

  t.equal((await call(client, 'archive_note', { id: noteId })).structuredContent?.archived, true)
  t.equal((await rest(`/notes/${noteId}`)).json().data.archived, true)
  t.notOk((await call(client, 'unarchive_note', { id: noteId })).structuredContent?.archived)
  t.equal((await rest(`/notes/${noteId}`)).json().data.archived, false)

  // Contacts.
  const contact = await call(client, 'create_contact', {
    first_name: 'Ada',
    last_name: 'Lovelace',
    emails: [{ address: 'ada@example.org', primary: true }],
    company: 'Analytical Engines',
    notes: 'met at the saffron fair',
  })
  const contactId = contact.structuredContent?.id as string
  t.same(contact.structuredContent, {
    id: contactId,
    display_name: 'Ada Lovelace',
    email: 'ada@example.org',
    company: 'Analytical Engines',
  })
  await event('contact.created', contactId)
  await call(client, 'update_contact', { id: contactId, job_title: 'Mathematician' })
  await call(client, 'update_contact_custom_fields', { id: contactId, custom_fields: { met_at: 'saffron fair' } })
  t.match((await rest(`/contacts/${contactId}`)).json().data, { job_title: 'Mathematician', custom_fields: { met_at: 'saffron fair' } })
  t.equal((await call(client, 'get_contact', { id: contactId, format: 'full' })).structuredContent?.job_title, 'Mathematician')

  // Events: a weekly series, seen by the calendar tool as occurrences.
  const monday = new Date()
  monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7))
  monday.setUTCHours(9, 0, 0, 0)
  const ev = await call(client, 'create_event', {
    title: 'Saffron tasting',
    start_at: monday.toISOString(),
    recurrence: { freq: 'DAILY', count: 30 },
  })
  const eventId = ev.structuredContent?.id as string
  await event('event.created', eventId)
  const week = await call(client, 'calendar', {})
  t.equal(week.structuredContent?.total, 7, 'this week by default: the daily series expanded to 7 occurrences')
  t.ok(week.structuredContent?.items.every((i: { id: string }) => i.id === eventId))
  const day = await call(client, 'calendar', { date: monday.toISOString().slice(0, 10), format: 'full' })
  t.match(day.structuredContent?.items, [{ recurrence_id: eventId, occurrence_start: monday.toISOString() }], 'full form marks occurrences')
  await call(client, 'update_event', { id: eventId, location: 'Kitchen' })
  await call(client, 'update_event_custom_fields', { id: eventId, custom_fields: { dish: 'risotto' } })
  t.match((await rest(`/events/${eventId}`)).json().data, { location: 'Kitchen', custom_fields: { dish: 'risotto' } })
  t.equal((await call(client, 'get_event', { id: eventId })).structuredContent?.location, 'Kitchen')

  // Tasks: create, what is due (open ones, soonest first), complete (a recurring one moves on).
  const soon = new Date(Date.now() + 86_400_000).toISOString()
  const bins = await call(client, 'create_task', { title: 'Put the bins out', due_at: soon, recurrence: { freq: 'WEEKLY' } })
  const taskId = bins.structuredContent?.id as string
  t.match(bins.structuredContent, { title: 'Put the bins out', status: 'needs-action', priority: 0 }, 'compact task')
  await call(client, 'create_task', { title: 'Someday maybe' })
  const later = await call(client, 'create_task', { title: 'Renew passport', due_at: new Date(Date.now() + 30 * 86_400_000).toISOString() })
  const due = await call(client, 'due_tasks', {})
  t.same(
    (due.structuredContent?.items as Array<{ title: string }>).map((x) => x.title),
    ['Put the bins out'],
    'due within the week: undated and later tasks left out',
  )
  const done = await call(client, 'complete_task', { id: taskId, format: 'full' })
  t.equal(done.structuredContent?.status, 'needs-action', 'a recurring task moves on instead of closing')
  t.equal(Date.parse(done.structuredContent?.due_at as string) - Date.parse(soon), 7 * 86_400_000, 'to its next due date')
  const closed = await call(client, 'complete_task', { id: later.structuredContent?.id })
  t.equal(closed.structuredContent?.status, 'completed')
  const month = await call(client, 'due_tasks', { due_before: new Date(Date.now() + 60 * 86_400_000).toISOString() })
  t.same(
    (month.structuredContent?.items as Array<{ title: string }>).map((x) => x.title),
    ['Put the bins out'],
    'completed tasks are not due',
  )
  t.equal((await event('task.updated', taskId)).data.id, taskId, 'task.updated on the WebSocket')

  // Search across the three, with each list's own filters.
  const found = await call(client, 'search', { query: 'saffron' })
  t.same(
    [found.structuredContent?.notes.total, found.structuredContent?.contacts.total, found.structuredContent?.events.total],
    [1, 1, 1],
    'the note, the contact (its notes) and the event',
  )
  const filtered = await call(client, 'search', { types: ['notes'], notes: { tag: ['nothing'] } })
  t.same(filtered.structuredContent, { notes: { items: [], total: 0 } }, 'filters of the notes list apply')
  const pinned = await call(client, 'search', { types: ['notes'], notes: { pinned: true }, format: 'full' })
  t.equal(pinned.structuredContent?.notes.items[0].content, '# Groceries\nmilk, eggs, saffron')

  // Delete and restore, for each resource.
  for (const [tool, resource, id] of [
    ['note', 'notes', noteId],
    ['contact', 'contacts', contactId],
    ['event', 'events', eventId],
  ] as const) {
    const deleted = await call(client, `delete_${tool}`, { id })
    t.ok(deleted.structuredContent?.deleted_at, `${tool}: soft delete shows deleted_at`)
    t.equal((await rest(`/${resource}/${id}`)).statusCode, 404, `${tool}: gone from REST`)
    await event(`${tool}.deleted`, id)
    await call(client, `restore_${tool}`, { id })
    t.equal((await rest(`/${resource}/${id}`)).statusCode, 200, `${tool}: restored`)
    await event(`${tool}.restored`, id)
  }
  t.same((await call(client, 'delete_note', { id: noteId, permanent: true })).structuredContent, { id: noteId })
  t.equal((await rest(`/notes/${noteId}?include_deleted=true`)).statusCode, 404, 'erased')
})

t.test('failures are tool results with the REST error code; protocol mistakes are JSON-RPC errors', async (t) => {
  const app = await build(t)
  const base = await listening(app)
  const o = await owner(app)
  const client = await connectHttp(base, await apiKey(app, o.token))
  t.teardown(() => client.close())

  const missing = await call(client, 'get_note', { id: '00000000-0000-4000-8000-000000000000' })
  t.equal(missing.isError, true)
  t.equal(missing.structuredContent?.error.code, 'NOT_FOUND')
  t.match(missing.content[0]?.text, /^NOT_FOUND: /)
  const invalid = await call(client, 'create_note', { title: 'no content' })
  t.match(invalid.structuredContent?.error, { code: 'VALIDATION_ERROR', details: { field: 'content', constraint: 'required' } })
  const typed = await call(client, 'create_note', { content: 'x', pinned: 'yes' })
  t.match(typed.structuredContent?.error, { code: 'VALIDATION_ERROR', details: { field: 'pinned', constraint: 'type' } }, 'no coercion')
  const unknown = await call(client, 'create_note', { content: 'x', colour: 'red' })
  t.match(unknown.structuredContent?.error, { code: 'VALIDATION_ERROR', details: { field: 'colour', constraint: 'unknown' } })
  const badQuery = await call(client, 'search', { types: ['notes'], notes: { sort: 'colour' } })
  t.match(badQuery.structuredContent?.error, { code: 'INVALID_QUERY', details: { field: 'sort' } }, 'the list route validates filters')
  const badFilter = await call(client, 'search', { contacts: { pinned: true } })
  t.match(badFilter.structuredContent?.error, { code: 'VALIDATION_ERROR', details: { field: 'contacts.pinned', constraint: 'unknown' } })
  const noId = await call(client, 'delete_note', {})
  t.match(noId.structuredContent?.error, { code: 'VALIDATION_ERROR', details: { field: 'id', constraint: 'required' } })
  const range = await call(client, 'calendar', { date: 'someday' })
  t.match(range.structuredContent?.error, { code: 'INVALID_QUERY', details: { field: 'date' } })

  await t.rejects(client.callTool({ name: 'drop_database', arguments: {} }), { code: -32602 }, 'unknown tool: invalid params')
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(o.token) })).json().meta.total, 0, 'nothing written')
})

t.test('two agents update from the same etag: one wins, the other gets PRECONDITION_FAILED and nothing of it is written', async (t) => {
  const { app, base, o, key } = await agentSetup(t)
  const first = await connectHttp(base, key)
  const second = await connectHttp(base, key)
  t.teardown(async () => Promise.all([first.close(), second.close()]))

  const made = await call(first, 'create_note', { content: 'shopping list', format: 'full' })
  const { id, etag } = made.structuredContent as { id: string; etag: string }
  t.equal(etag, '"1"', 'a full answer carries the etag')
  const won = await call(first, 'update_note', { id, if_match: etag, content: 'milk', format: 'full' })
  t.equal(won.isError, undefined)
  t.equal(won.structuredContent?.etag, '"2"')
  const lost = await call(second, 'update_note', { id, if_match: etag, content: 'eggs' })
  t.equal(lost.isError, true)
  t.match(lost.structuredContent?.error, { code: 'PRECONDITION_FAILED', details: { etag: '"2"' } })
  const stored = await app.inject({ url: `/api/v1/notes/${id}`, headers: auth(o.token) })
  t.equal(stored.json().data.content, 'milk', 'the stale update changed nothing')
})
