import t from 'tap'
import { bench } from './records-app.js'

t.test('a second user can neither see nor touch the first user records: 404 everywhere', async (t) => {
  const { call, asOther, events } = await bench(t)
  const other = await asOther()
  const mine = {
    notes: (await call('POST', '/notes', { content: 'secret plans', tags: ['x'] })).body.data,
    contacts: (await call('POST', '/contacts', { display_name: 'Secret Friend', company: 'Hidden' })).body.data,
    events: (await call('POST', '/events', { title: 'Secret meeting', start_at: '2026-11-18T10:00:00Z', recurrence: { freq: 'DAILY' } }))
      .body.data,
  }
  await call('DELETE', `/notes/${(await call('POST', '/notes', { content: 'trashed secret' })).body.data.id}`)
  const theirs = (await other('POST', '/notes', { content: 'their own' })).body.data

  for (const [path, record] of Object.entries(mine)) {
    const id = record.id
    for (const qs of [
      '',
      'search=secret',
      'include_deleted=true',
      'only_deleted=true',
      'format=compact',
      ...(path === 'events' ? ['date=this_month'] : []),
    ]) {
      const res = await other('GET', `/${path}?${qs}`)
      t.equal(res.status, 200)
      t.ok(
        res.body.data.every((r: { id: string }) => r.id !== id && !JSON.stringify(r).includes('ecret')),
        `${path}?${qs}: nothing of the first user`,
      )
    }
    const attempts: Array<[string, string, unknown]> = [
      ['GET', `/${path}/${id}`, undefined],
      ['GET', `/${path}/${id}?include_deleted=true`, undefined],
      [
        'PATCH',
        `/${path}/${id}`,
        path === 'events' ? { title: 'hijack' } : path === 'notes' ? { content: 'hijack' } : { display_name: 'hijack' },
      ],
      ['PATCH', `/${path}/${id}/custom`, { hijack: true }],
      ['DELETE', `/${path}/${id}`, undefined],
      ['DELETE', `/${path}/${id}?permanent=true`, undefined],
      ['POST', `/${path}/${id}/restore`, undefined],
      ...(path === 'notes' ? ([['POST', `/notes/${id}/archive`, undefined]] as Array<[string, string, unknown]>) : []),
    ]
    for (const [method, url, payload] of attempts) {
      const res = await other(method, url, payload)
      t.equal(res.status, 404, `${method} ${url}`)
      t.equal(res.body.error.code, 'NOT_FOUND')
    }
    const still = await call('GET', `/${path}/${id}`)
    t.same(still.body.data, record, `${path}: untouched`)
  }
  t.equal((await call('GET', `/notes/${theirs.id}`)).status, 404, 'and the other way round')
  const theirEvents = events.filter((e) => e.id === theirs.id)
  t.equal(theirEvents.length, 1)
  t.not(theirEvents[0]?.userId, events.find((e) => e.id === mine.notes.id)?.userId, 'events carry the owning user')
})
