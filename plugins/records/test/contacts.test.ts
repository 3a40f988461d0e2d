import t from 'tap'
import { bench } from './records-app.js'

t.test('POST /contacts fills defaults, derives display_name and item labels', async (t) => {
  const { call, clock } = await bench(t)
  const res = await call('POST', '/contacts', {
    first_name: ' Ada ',
    last_name: 'Lovelace',
    emails: [{ address: 'ada@example.org' }],
    phones: [{ number: '+44 20 7946 0018', label: 'work', primary: true }],
    addresses: [{ city: 'London' }],
  })
  t.equal(res.status, 201)
  const { id, owner_id, ...rest } = res.body.data
  t.match(owner_id, /^[0-9a-f-]{36}$/, 'whose it is')
  t.same(rest, {
    display_name: 'Ada Lovelace',
    first_name: ' Ada ',
    last_name: 'Lovelace',
    emails: [{ address: 'ada@example.org', label: 'other', primary: false }],
    phones: [{ number: '+44 20 7946 0018', label: 'work', primary: true }],
    company: null,
    job_title: null,
    addresses: [{ street: null, city: 'London', state: null, postal_code: null, country: null, label: null }],
    notes: null,
    avatar_path: null,
    has_photo: false,
    tags: [],
    nickname: null,
    birthday: null,
    anniversary: null,
    urls: [],
    groups: [],
    custom_fields: null,
    source: 'local',
    created_at: new Date(clock.ms).toISOString(),
    updated_at: new Date(clock.ms).toISOString(),
    deleted_at: null,
    etag: '"1"',
  })
  const onlyLast = await call('POST', '/contacts', { last_name: 'Curie' })
  t.equal(onlyLast.body.data.display_name, 'Curie')
  const given = await call('POST', '/contacts', { display_name: 'Dr. G', first_name: 'Grace' })
  t.equal(given.body.data.display_name, 'Dr. G', 'a given display_name wins')
})

t.test('contact validation errors name field and constraint', async (t) => {
  const { call } = await bench(t)
  const id = (await call('POST', '/contacts', { display_name: 'X' })).body.data.id
  const cases: Array<[string, string, unknown, { field: string; constraint: string }]> = [
    ['POST', '/contacts', {}, { field: 'display_name', constraint: 'required' }],
    ['POST', '/contacts', { display_name: '  ', first_name: '', last_name: null }, { field: 'display_name', constraint: 'required' }],
    ['POST', '/contacts', { display_name: 'A', emails: [{ label: 'work' }] }, { field: 'emails.0.address', constraint: 'required' }],
    [
      'POST',
      '/contacts',
      { display_name: 'A', emails: [{ address: 'a@b', label: 'home' }] },
      { field: 'emails.0.label', constraint: 'enum' },
    ],
    [
      'POST',
      '/contacts',
      { display_name: 'A', emails: [{ address: 'a@b', primary: 'yes' }] },
      { field: 'emails.0.primary', constraint: 'type' },
    ],
    ['POST', '/contacts', { display_name: 'A', phones: [{ number: '1', label: 'fax' }] }, { field: 'phones.0.label', constraint: 'enum' }],
    [
      'POST',
      '/contacts',
      { display_name: 'A', phones: [{ number: '1', extension: '2' }] },
      { field: 'phones.0.extension', constraint: 'unknown' },
    ],
    ['POST', '/contacts', { display_name: 'A', addresses: [{ town: 'x' }] }, { field: 'addresses.0.town', constraint: 'unknown' }],
    ['POST', '/contacts', { display_name: 'A', company: 7 }, { field: 'company', constraint: 'type' }],
    ['POST', '/contacts', { display_name: 'A', birthday: 20000101 }, { field: 'birthday', constraint: 'type' }],
    ['PATCH', `/contacts/${id}`, { display_name: null }, { field: 'display_name', constraint: 'required' }],
    ['PATCH', `/contacts/${id}`, { tags: 'friends' }, { field: 'tags', constraint: 'type' }],
  ]
  for (const [method, path, payload, details] of cases) {
    const res = await call(method, path, payload)
    t.equal(res.status, 400, JSON.stringify(payload))
    t.equal(res.body.error.code, 'VALIDATION_ERROR')
    t.same(res.body.error.details, details, JSON.stringify(payload))
  }
  for (const [qs, field, constraint] of [
    ['sort=title', 'sort', 'enum'],
    ['order=sideways', 'order', 'enum'],
    ['pinned=true', 'pinned', 'unknown'],
    ['company=', 'company', 'minLength'],
  ]) {
    const res = await call('GET', `/contacts?${qs}`)
    t.equal(res.body.error?.code, 'INVALID_QUERY', qs)
    t.same(res.body.error?.details, { field, constraint }, qs)
  }
})

t.test('contact list: company partial and case-insensitive, tag AND, source, every sort', async (t) => {
  const { call, clock } = await bench(t)
  const make = async (body: Record<string, unknown>, source?: string) => {
    clock.advance(1000)
    return (await call('POST', '/contacts', body, source ? { 'x-svc-source': source } : {})).body.data
  }
  const zoe = await make({ display_name: 'zoe', company: 'ACME Corp', tags: ['client', 'vip'] })
  const bob = await make({ display_name: 'Bob', company: 'Globex', tags: ['client'] }, 'carddav')
  const amy = await make({ display_name: 'amy', company: 'Überacme GmbH', tags: ['vip'] })
  const cal = await make({ display_name: 'Cal' })
  clock.advance(1000)
  await call('PATCH', `/contacts/${bob.id}`, { job_title: 'CEO' })
  const names = async (qs: string) => {
    const res = await call('GET', `/contacts?${qs}`)
    t.equal(res.status, 200, qs)
    t.equal(res.body.meta.total, res.body.data.length, qs)
    return res.body.data.map((c: { display_name: string }) => c.display_name)
  }
  t.same(await names(''), ['amy', 'Bob', 'Cal', 'zoe'], 'default: display_name asc, case-insensitive')
  t.same(await names('order=desc'), ['zoe', 'Cal', 'Bob', 'amy'])
  t.same(await names('company=acme'), ['amy', 'zoe'], 'partial, case-insensitive')
  t.same(await names('company=ÜBERACME'), ['amy'], 'case folding beyond ASCII')
  t.same(await names('company=glob&tag=client'), ['Bob'])
  t.same(await names('tag=vip'), ['amy', 'zoe'])
  t.same(await names('tag=client&tag=vip'), ['zoe'])
  t.same(await names('source=carddav'), ['Bob'])
  t.same(await names('source=local&tag=vip'), ['amy', 'zoe'])
  t.same(await names('sort=company'), ['zoe', 'Bob', 'amy', 'Cal'], 'company asc, contacts without company last')
  t.same(await names('sort=company&order=desc'), ['amy', 'Bob', 'zoe', 'Cal'], 'company desc, still without company last')
  t.same(await names('sort=created_at'), ['zoe', 'Bob', 'amy', 'Cal'])
  t.same(await names('sort=created_at&order=desc'), ['Cal', 'amy', 'Bob', 'zoe'])
  t.same(await names('sort=updated_at&order=desc'), ['Bob', 'Cal', 'amy', 'zoe'])
  const page = await call('GET', '/contacts?limit=3&offset=3')
  t.same(page.body.meta, { total: 4, limit: 3, offset: 3 })
  t.same(
    page.body.data.map((c: { id: string }) => c.id),
    [zoe.id],
  )
  t.ok(cal && amy)
})

t.test('contact search covers names, e-mails, phones, company and notes', async (t) => {
  const { call } = await bench(t)
  const jane = (
    await call('POST', '/contacts', {
      first_name: 'Jane',
      last_name: 'Doe',
      emails: [{ address: 'jane.doe@fastmail.example' }],
      phones: [{ number: '+1 (555) 123-4567' }],
      company: 'Initech',
      notes: 'met at the climbing gym',
    })
  ).body.data
  await call('POST', '/contacts', { display_name: 'Somebody Else', notes: 'unrelated' })
  for (const q of [
    'jane',
    'DOE',
    'fastmail',
    'jane.doe@fastmail.example',
    '555-1234',
    '5551234567',
    '1234567',
    '15551234567',
    'initech',
    'climb',
    'gym',
  ]) {
    const res = await call('GET', `/contacts?search=${encodeURIComponent(q)}`)
    t.same(
      res.body.data.map((c: { id: string }) => c.id),
      [jane.id],
      q,
    )
  }
})

t.test('contact compact: id, display_name, primary-or-first email and phone, company', async (t) => {
  const { call } = await bench(t)
  const c = (
    await call('POST', '/contacts', {
      display_name: 'Multi',
      emails: [{ address: 'first@x.example' }, { address: 'main@x.example', primary: true }],
      phones: [{ number: '111' }, { number: '222' }],
      company: 'Acme',
      notes: 'not in compact',
    })
  ).body.data
  const bare = (await call('POST', '/contacts', { display_name: 'Bare' })).body.data
  const res = await call('GET', '/contacts?format=compact')
  t.same(res.body.data, [
    { id: bare.id, display_name: 'Bare' },
    { id: c.id, display_name: 'Multi', email: 'main@x.example', phone: '111', company: 'Acme' },
  ])
})
