import t from 'tap'
import { bench, recordEventsOf } from './records-app.js'

/**
 * Tasks through the HTTP API: defaults, completed_at following the status, complete and reopen,
 * subtasks (another user's parent, cycles), the list filters and sorts, compact items, search,
 * and bad input refused with nothing stored. Recurring tasks: recurrence.test-style checks against
 * python-dateutil are in task-recurrence.test.ts.
 */
type Task = Record<string, unknown> & { id: string; title: string }

t.test('a task gets its defaults; completing sets completed_at, reopening clears it; events follow', async (t) => {
  const { call, clock, events } = await bench(t)
  const created = await call('POST', '/tasks', { title: 'Water the plants' })
  t.equal(created.status, 201)
  const task = created.body.data as Task
  t.match(task, {
    title: 'Water the plants',
    description: null,
    status: 'needs-action',
    due_at: null,
    start_at: null,
    all_day: false,
    completed_at: null,
    priority: 0,
    list_name: 'default',
    parent_id: null,
    tags: [],
    recurrence: null,
    reminders: [],
    timezone: 'UTC',
    custom_fields: null,
    source: 'local',
    deleted_at: null,
    etag: '"1"',
  })

  clock.advance(60_000)
  const done = await call('POST', `/tasks/${task.id}/complete`)
  t.equal(done.status, 200)
  t.equal(done.body.data.status, 'completed')
  t.equal(done.body.data.completed_at, new Date(clock.ms).toISOString(), 'completed_at is the time of completion')
  t.equal(done.body.data.etag, '"2"')
  const again = await call('POST', `/tasks/${task.id}/complete`)
  t.equal(again.body.data.etag, '"2"', 'completing a completed task changes nothing')

  clock.advance(60_000)
  const open = await call('POST', `/tasks/${task.id}/reopen`)
  t.equal(open.body.data.status, 'needs-action')
  t.equal(open.body.data.completed_at, null, 'leaving completed clears completed_at')
  t.equal((await call('POST', `/tasks/${task.id}/reopen`)).body.data.etag, open.body.data.etag, 'reopening an open task: no change')

  const patched = await call('PATCH', `/tasks/${task.id}`, { status: 'completed', completed_at: '2026-11-01T08:00:00+01:00' })
  t.equal(patched.body.data.completed_at, '2026-11-01T07:00:00.000Z', 'a completion time given with the status is kept (in UTC)')
  const moved = await call('PATCH', `/tasks/${task.id}`, { title: 'Water the big plants' })
  t.equal(moved.body.data.completed_at, '2026-11-01T07:00:00.000Z', 'a later edit keeps it while the task stays completed')
  const cancelled = await call('PATCH', `/tasks/${task.id}`, { status: 'cancelled' })
  t.equal(cancelled.body.data.completed_at, null)
  t.equal((await call('POST', `/tasks/${task.id}/reopen`)).body.data.status, 'needs-action', 'a cancelled task reopens too')

  t.equal((await call('POST', `/tasks/00000000-0000-4000-8000-000000000000/complete`)).status, 404)
  await call('DELETE', `/tasks/${task.id}`)
  t.equal((await call('POST', `/tasks/${task.id}/complete`)).status, 404, 'a task in the trash cannot be completed')

  t.same(
    recordEventsOf(events).map(([type]) => type),
    ['task.created', 'task.updated', 'task.updated', 'task.updated', 'task.updated', 'task.updated', 'task.updated', 'task.deleted'],
    'one task.updated per change, none for the no-ops',
  )
})

t.test('complete and reopen honour If-Match', async (t) => {
  const { app, token, call } = await bench(t)
  const task = (await call('POST', '/tasks', { title: 'Conditional' })).body.data as Task
  await call('PATCH', `/tasks/${task.id}`, { priority: 3 })
  const stale = await app.inject({
    method: 'POST',
    url: `/api/v1/tasks/${task.id}/complete`,
    headers: { authorization: `Bearer ${token}`, 'if-match': '"1"' },
  })
  t.equal(stale.statusCode, 412)
  t.equal(stale.json().error.code, 'PRECONDITION_FAILED')
  t.equal((await call('GET', `/tasks/${task.id}`)).body.data.status, 'needs-action', 'nothing changed')
  const fresh = await app.inject({
    method: 'POST',
    url: `/api/v1/tasks/${task.id}/complete`,
    headers: { authorization: `Bearer ${token}`, 'if-match': '"2"' },
  })
  t.equal(fresh.statusCode, 200)
  t.equal(fresh.headers.etag, '"3"')
})

t.test('subtasks: the parent must be the caller’s; no cycles; a parent erased for good frees its subtasks', async (t) => {
  const { call, asOther } = await bench(t)
  const parent = (await call('POST', '/tasks', { title: 'Move house' })).body.data as Task
  const child = (await call('POST', '/tasks', { title: 'Pack books', parent_id: parent.id })).body.data as Task
  const grandchild = (await call('POST', '/tasks', { title: 'Buy boxes', parent_id: child.id })).body.data as Task
  t.equal(child.parent_id, parent.id)

  const other = await asOther()
  const theirs = (await other('POST', '/tasks', { title: 'Theirs' })).body.data as Task
  const foreign = await call('POST', '/tasks', { title: 'Sneaky', parent_id: theirs.id })
  t.equal(foreign.status, 400)
  t.same(foreign.body.error.details, { field: 'parent_id', constraint: 'exists' }, "another user's task is no parent")
  const missing = await call('PATCH', `/tasks/${child.id}`, { parent_id: '00000000-0000-4000-8000-000000000000' })
  t.same(missing.body.error.details, { field: 'parent_id', constraint: 'exists' })

  const cycle = await call('PATCH', `/tasks/${parent.id}`, { parent_id: grandchild.id })
  t.equal(cycle.status, 400)
  t.same(cycle.body.error.details, { field: 'parent_id', constraint: 'cycle' })
  const self = await call('PATCH', `/tasks/${parent.id}`, { parent_id: parent.id })
  t.same(self.body.error.details, { field: 'parent_id', constraint: 'cycle' })
  t.equal((await call('GET', `/tasks/${parent.id}`)).body.data.parent_id, null, 'nothing stored')
  t.equal((await call('GET', `/tasks/${parent.id}`)).body.data.etag, '"1"')

  const subtasks = await call('GET', `/tasks?parent_id=${parent.id}`)
  t.same(
    subtasks.body.data.map((x: Task) => x.id),
    [child.id],
    'parent_id lists the direct subtasks',
  )
  t.equal((await call('DELETE', `/tasks/${child.id}?permanent=true`)).status, 200)
  const freed = (await call('GET', `/tasks/${grandchild.id}`)).body.data
  t.equal(freed.parent_id, null, 'a subtask of a task erased for good is at the top level')
  t.equal(freed.etag, '"2"', 'which is a change of it')
})

t.test('bad input gets the envelope and stores nothing', async (t) => {
  const { call } = await bench(t)
  const cases: Array<[unknown, string, string]> = [
    [{ title: 'x', start_at: '2026-12-02T10:00:00Z', due_at: '2026-12-01T10:00:00Z' }, 'due_at', 'after_start_at'],
    [{ title: 'x', priority: 10 }, 'priority', 'maximum'],
    [{ title: 'x', status: 'done' }, 'status', 'enum'],
    [{ title: '' }, 'title', 'minLength'],
    [{ description: 'no title' }, 'title', 'required'],
    [{ title: 'x', recurrence: { freq: 'DAILY' } }, 'recurrence', 'requires_due_at'],
    [
      { title: 'x', due_at: '2026-12-01T10:00:00Z', recurrence: { freq: 'DAILY', count: 2, until: '2027-01-01' } },
      'recurrence.until',
      'exclusive',
    ],
    [{ title: 'x', timezone: 'Mars/Olympus' }, 'timezone', 'zone'],
    [{ title: 'x', parent_id: 'not-a-uuid' }, 'parent_id', 'format'],
    [{ title: 'x', completed: true }, 'completed', 'unknown'],
  ]
  for (const [body, field, constraint] of cases) {
    const res = await call('POST', '/tasks', body)
    t.equal(res.status, 400, JSON.stringify(body))
    t.equal(res.body.error.code, 'VALIDATION_ERROR')
    t.same(res.body.error.details, { field, constraint }, `${field}: ${constraint}`)
  }
  t.equal((await call('GET', '/tasks')).body.meta.total, 0, 'nothing stored')
  const task = (await call('POST', '/tasks', { title: 'ok', start_at: '2026-12-01T10:00:00Z' })).body.data as Task
  const late = await call('PATCH', `/tasks/${task.id}`, { due_at: '2026-11-30T10:00:00Z' })
  t.same(late.body.error.details, { field: 'due_at', constraint: 'after_start_at' })
  t.equal((await call('GET', `/tasks/${task.id}`)).body.data.due_at, null)
  for (const qs of ['sort=start_at', 'status=done', 'due_before=tomorrowish', 'parent_id=x', 'limit=201', 'priority=1']) {
    const res = await call('GET', `/tasks?${qs}`)
    t.equal(res.status, 400, qs)
    t.equal(res.body.error.code, 'INVALID_QUERY', qs)
  }
})

t.test('filters: status (repeatable), list_name, due_before/due_after, tag, parent_id; the trash views', async (t) => {
  const { call } = await bench(t, { env: { HEARTH_TIMEZONE: 'Europe/Paris' } })
  const make = async (body: Record<string, unknown>) => ((await call('POST', '/tasks', body)).body.data as Task).id
  const a = await make({ title: 'a', due_at: '2026-12-01T08:00:00Z', tags: ['home'], list_name: 'house' })
  const b = await make({ title: 'b', due_at: '2026-12-01T23:30:00Z', status: 'in-process', tags: ['home', 'urgent'] })
  const c = await make({ title: 'c', due_at: '2026-12-03T10:00:00Z', status: 'completed', list_name: 'house' })
  const d = await make({ title: 'd', status: 'cancelled' })
  const ids = async (qs: string) => (await call('GET', `/tasks?${qs}`)).body.data.map((x: Task) => x.id)

  t.same(await ids('status=needs-action'), [a])
  t.same(await ids('status=needs-action&status=in-process'), [a, b], 'repeated status: any of them')
  t.same(await ids('status=completed&status=cancelled'), [c, d])
  t.same(await ids('list_name=house'), [a, c])
  t.same(await ids('due_before=2026-12-01'), [a], "a bare day ends at that day's end in HEARTH_TIMEZONE (Paris: 23:00Z)")
  t.same(await ids('due_after=2026-12-02'), [b, c], 'and starts at its start (b is due 00:30 on the 2nd in Paris)')
  t.same(await ids('due_after=2026-12-01T08:00:00Z&due_before=2026-12-03T10:00:00Z'), [a, b, c], 'datetimes, both inclusive')
  t.same(await ids('tag=home'), [a, b])
  t.same(await ids('tag=home&tag=urgent'), [b], 'tags combine with AND')
  await call('DELETE', `/tasks/${a}`)
  t.same(await ids('tag=home'), [b], 'deleted tasks are left out')
  t.same(await ids('only_deleted=true'), [a])
  t.same(await ids('include_deleted=true&list_name=house'), [a, c])
})

t.test('sorts: due_at by default with undated tasks last; priority with "none" last; title; keyset paging', async (t) => {
  const { call } = await bench(t)
  const make = async (body: Record<string, unknown>) => ((await call('POST', '/tasks', body)).body.data as Task).id
  const later = await make({ title: 'Later', due_at: '2026-12-10T10:00:00Z', priority: 5 })
  const none = await make({ title: 'anytime' })
  const soon = await make({ title: 'Soon', due_at: '2026-12-01T10:00:00Z', priority: 1 })
  const none2 = await make({ title: 'whenever', priority: 9 })
  const ids = async (qs: string) => (await call('GET', `/tasks?${qs}`)).body.data.map((x: Task) => x.id)

  t.same(await ids(''), [soon, later, none, none2], 'due_at ascending, tasks without a due date last')
  t.same(await ids('order=desc'), [later, soon, none2, none], 'descending: still last')
  t.same(await ids('sort=priority'), [soon, later, none2, none], 'priority 1 first, 0 (none) last')
  t.same(await ids('sort=priority&order=desc'), [none2, later, soon, none])
  t.same(await ids('sort=title'), [none, later, soon, none2], 'title case-insensitively')
  const first = await ids('limit=2')
  t.same(first, [soon, later])
  t.same(await ids(`limit=2&after=${later}`), [none, none2], 'keyset paging runs from a dated task into the undated ones')
  t.same(await ids(`limit=2&after=${none}`), [none2], 'and among the undated ones')
  t.same(await ids(`sort=priority&limit=5&after=${later}`), [none2, none], 'keyset paging over the priority order')
})

t.test('compact items and full-text search', async (t) => {
  const { call } = await bench(t)
  const task = (
    await call('POST', '/tasks', {
      title: 'Call the plumber',
      description: 'The boiler leaks',
      due_at: '2026-12-01T10:00:00Z',
      priority: 2,
      tags: ['house'],
    })
  ).body.data as Task
  await call('POST', '/tasks', { title: 'Buy café beans' })
  const compact = await call('GET', '/tasks?format=compact&search=plumber')
  t.same(compact.body.data, [
    {
      id: task.id,
      title: 'Call the plumber',
      status: 'needs-action',
      due_at: '2026-12-01T10:00:00.000Z',
      priority: 2,
      list_name: 'default',
      tags: ['house'],
    },
  ])
  t.same(
    (await call('GET', '/tasks?search=boiler')).body.data.map((x: Task) => x.id),
    [task.id],
    'the description is searched',
  )
  t.equal((await call('GET', '/tasks?search=cafe')).body.meta.total, 1, 'diacritics fold')
})

t.test('all-day tasks are dates', async (t) => {
  const { call } = await bench(t)
  const task = (await call('POST', '/tasks', { title: 'Bin day', all_day: true, due_at: '2026-12-24T00:00:00+01:00' })).body.data as Task
  t.equal(task.due_at, '2026-12-24T00:00:00.000Z', 'the day as written')
})
