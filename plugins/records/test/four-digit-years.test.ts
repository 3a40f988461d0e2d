import t from 'tap'
import { bench } from './records-app.js'

/**
 * Datetimes are answered in UTC with a four-digit year. One sent with an offset that carries it
 * past 9999-12-31 (or before year 0) is refused, and a recurring task completed on the last day of
 * year 9999 is completed for good: stored, either would have made the record, and every list of
 * its kind, answer 500 from then on.
 */
t.test('a datetime whose UTC form leaves year 9999 is refused, and the lists still answer', async (t) => {
  const { call } = await bench(t)
  for (const [path, body, field] of [
    ['/tasks', { title: 'late', due_at: '9999-12-31T23:59:59-05:00' }, 'due_at'],
    ['/tasks', { title: 'early', start_at: '0000-01-01T00:00:00+05:00' }, 'start_at'],
    ['/events', { title: 'late', start_at: '9999-12-31T23:00:00-05:00', end_at: '9999-12-31T23:30:00-05:00' }, 'start_at'],
  ] as const) {
    const res = await call('POST', path, body)
    t.equal(res.status, 400, `${path} ${field}`)
    t.equal(res.body.error.details.field, field)
  }
  t.equal((await call('POST', '/tasks', { title: 'last', due_at: '9999-12-31T23:59:59Z' })).status, 201, 'the last UTC second is taken')
  t.equal((await call('GET', '/tasks')).status, 200)
  t.equal((await call('GET', '/events')).status, 200)
})

t.test('a recurring task due on the last day of 9999 has no further round', async (t) => {
  const { call } = await bench(t)
  const made = await call('POST', '/tasks', { title: 'yearly', due_at: '9999-12-31T12:00:00Z', recurrence: { freq: 'YEARLY' } })
  const done = await call('POST', `/tasks/${made.body.data.id}/complete`)
  t.equal(done.status, 200)
  t.equal(done.body.data.status, 'completed')
  t.equal(done.body.data.due_at, '9999-12-31T12:00:00.000Z')
  t.equal((await call('GET', `/tasks/${made.body.data.id}`)).status, 200)
  t.equal((await call('GET', '/tasks')).status, 200)
})
