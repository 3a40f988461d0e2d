import t from 'tap'
import { bench } from './records-app.js'
import { household } from './sharing-app.js'

/** Contacts' birthday, anniversary, nickname, URLs and groups, through the HTTP API. */

t.test('birthday and anniversary: real dates, with or without a year; anything else is a 400 naming the field', async (t) => {
  const { call } = await bench(t)
  const good = ['1985-04-12', '--04-12', '--02-29', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31', '--12-31']
  for (const date of good) {
    for (const field of ['birthday', 'anniversary']) {
      const res = await call('POST', '/contacts', { display_name: 'D', [field]: date })
      t.equal(res.status, 201, `${field} ${date}`)
      t.equal(res.body.data[field], date, 'kept as written')
      const read = await call('GET', `/contacts/${res.body.data.id}`)
      t.equal(read.body.data[field], date, 'and read back')
    }
  }
  const bad: Array<[unknown, string]> = [
    ['2023-02-29', 'date'],
    ['1900-02-29', 'date'],
    ['--02-30', 'date'],
    ['--04-31', 'date'],
    ['2024-13-01', 'date'],
    ['2024-00-10', 'date'],
    ['2024-01-00', 'date'],
    ['0000-01-01', 'date'],
    ['1985-4-12', 'pattern'],
    ['19850412', 'pattern'],
    ['--0412', 'pattern'],
    ['---04-12', 'pattern'],
    ['1985-04-12T00:00:00Z', 'pattern'],
    ['', 'pattern'],
    [19850412, 'type'],
  ]
  const id = (await call('POST', '/contacts', { display_name: 'E', birthday: '1990-01-01' })).body.data.id
  for (const [value, constraint] of bad) {
    for (const field of ['birthday', 'anniversary']) {
      const res = await call('POST', '/contacts', { display_name: 'D', [field]: value })
      t.equal(res.status, 400, `${field} ${JSON.stringify(value)}`)
      t.equal(res.body.error.code, 'VALIDATION_ERROR')
      t.same(res.body.error.details, { field, constraint }, `${field} ${JSON.stringify(value)}`)
      const patch = await call('PATCH', `/contacts/${id}`, { [field]: value })
      t.equal(patch.status, 400, `PATCH ${field} ${JSON.stringify(value)}`)
    }
  }
  t.equal((await call('GET', `/contacts/${id}`)).body.data.birthday, '1990-01-01', 'nothing stored by the refused writes')
  const cleared = await call('PATCH', `/contacts/${id}`, { birthday: null })
  t.equal(cleared.body.data.birthday, null, 'null clears it')
})

t.test('nickname, URLs and groups: stored, bounded, searched and filtered', async (t) => {
  const { call } = await bench(t)
  const ada = await call('POST', '/contacts', {
    first_name: 'Augusta',
    last_name: 'King',
    nickname: 'Bunny',
    urls: [{ url: 'https://example.org/ada' }, { url: 'http://192.168.1.10/', label: 'nas' }],
    groups: ['Family', 'Book club', 'Family'],
  })
  t.equal(ada.status, 201)
  t.same(ada.body.data.urls, [
    { url: 'https://example.org/ada', label: null },
    { url: 'http://192.168.1.10/', label: 'nas' },
  ])
  t.same(ada.body.data.groups, ['Family', 'Book club'], 'a group named twice is one membership')
  await call('POST', '/contacts', { display_name: 'Charles Babbage', groups: ['Book club'] })
  await call('POST', '/contacts', { display_name: 'Bugs', groups: ['Work'] })

  const search = await call('GET', '/contacts?search=bunny')
  t.same(
    search.body.data.map((c: { display_name: string }) => c.display_name),
    ['Augusta King'],
    'the nickname is searched with the names',
  )
  const renamed = await call('PATCH', `/contacts/${ada.body.data.id}`, { nickname: 'Countess' })
  t.equal(renamed.body.data.nickname, 'Countess')
  t.same((await call('GET', '/contacts?search=countess')).body.data.length, 1, 'a changed nickname is searched at once')
  t.same((await call('GET', '/contacts?search=bunny')).body.data.length, 0, 'the old one no longer')

  const club = await call('GET', '/contacts?group=Book%20club')
  t.same(club.body.data.map((c: { display_name: string }) => c.display_name).sort(), ['Augusta King', 'Charles Babbage'])
  t.equal(club.body.meta.total, 2)
  const both = await call('GET', '/contacts?group=Book%20club&group=Family')
  t.same(
    both.body.data.map((c: { display_name: string }) => c.display_name),
    ['Augusta King'],
    'repeated: in every group named',
  )
  t.equal((await call('GET', '/contacts?group=family')).body.meta.total, 0, 'group names are exact')

  for (const [body, field, constraint] of [
    [{ urls: [{ url: '' }] }, 'urls.0.url', 'minLength'],
    [{ urls: [{ url: 'https://a b' }] }, 'urls.0.url', 'pattern'],
    [{ urls: [{ url: `https://x/${'a'.repeat(2048)}` }] }, 'urls.0.url', 'maxLength'],
    [{ urls: [{ url: 'https://x', kind: 'home' }] }, 'urls.0.kind', 'unknown'],
    [{ urls: Array.from({ length: 51 }, (_, i) => ({ url: `https://x/${i}` })) }, 'urls', 'maxItems'],
    [{ groups: [''] }, 'groups.0', 'minLength'],
    [{ groups: ['a\nb'] }, 'groups.0', 'pattern'],
    [{ groups: Array.from({ length: 101 }, (_, i) => `g${i}`) }, 'groups', 'maxItems'],
    [{ nickname: 'n'.repeat(201) }, 'nickname', 'maxLength'],
  ] as const) {
    const res = await call('POST', '/contacts', { display_name: 'X', ...body })
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 80))
    t.same(res.body.error.details, { field, constraint }, JSON.stringify(body).slice(0, 80))
  }
  const bad = await call('GET', `/contacts?group=${'g'.repeat(201)}`)
  t.equal(bad.body.error.code, 'INVALID_QUERY')
})

t.test('the birthdays calendar: yearly all-day occurrences in ranged lists, read-only', async (t) => {
  const { call } = await bench(t)
  const ada = (await call('POST', '/contacts', { display_name: 'Ada', birthday: '1815-12-10', anniversary: '--07-08' })).body.data
  const leap = (await call('POST', '/contacts', { display_name: 'Leap', birthday: '--02-29' })).body.data
  await call('POST', '/contacts', { display_name: 'Nobody' })
  const gone = (await call('POST', '/contacts', { display_name: 'Gone', birthday: '2000-03-01' })).body.data
  await call('DELETE', `/contacts/${gone.id}`)
  await call('POST', '/events', { title: 'Dentist', start_at: '2026-12-10T09:00:00Z' })

  const year = await call('GET', '/events?calendar_name=birthdays&from=2027-01-01&to=2028-12-31&limit=50')
  t.equal(year.status, 200)
  t.same(
    year.body.data.map((e: { title: string; start_at: string }) => [e.start_at.slice(0, 10), e.title]),
    [
      ['2027-02-28', "Leap's birthday"],
      ['2027-07-08', "Ada's anniversary"],
      ['2027-12-10', "Ada's birthday"],
      ['2028-02-29', "Leap's birthday"],
      ['2028-07-08', "Ada's anniversary"],
      ['2028-12-10', "Ada's birthday"],
    ],
    'Feb 29 falls on the 28th in the other years; the trashed contact and the dentist are not there',
  )
  t.equal(year.body.meta.total, 6)
  const first = year.body.data[2]
  t.match(first, {
    all_day: true,
    calendar_name: 'birthdays',
    recurrence: { freq: 'YEARLY' },
    owner_id: ada.owner_id,
    custom_fields: { contact_id: ada.id, occasion: 'birthday', year: 1815 },
    occurrence_start: '2027-12-10T00:00:00.000Z',
  })
  t.equal(first.recurrence_id, first.id, 'an occurrence of its yearly series')
  const page = await call('GET', '/events?calendar_name=birthdays&from=2027-01-01&to=2028-12-31&limit=2&offset=2&format=compact')
  t.same(
    page.body.data.map((e: { title: string }) => e.title),
    ["Ada's birthday", "Leap's birthday"],
  )
  t.same(Object.keys(page.body.data[0]).sort(), ['all_day', 'id', 'start_at', 'status', 'title'])
  const series = await call('GET', '/events?calendar_name=birthdays')
  t.equal(series.body.meta.total, 3, 'without a window: each yearly series once')
  t.equal((await call('GET', '/events?from=2027-12-01&to=2027-12-31')).body.meta.total, 0, 'other calendars keep their own events only')

  // An edit of the contact shows at once.
  await call('PATCH', `/contacts/${ada.id}`, { birthday: '--12-11', display_name: 'Ada L.' })
  const moved = await call('GET', '/events?calendar_name=birthdays&date=2027-12-11')
  t.same(
    moved.body.data.map((e: { title: string }) => e.title),
    ["Ada L.'s birthday"],
  )
  t.same(moved.body.data[0].custom_fields, { contact_id: ada.id, occasion: 'birthday' }, 'no year: no age to count')

  // Writes into it are refused with the envelope.
  const create = await call('POST', '/events', {
    title: 'Party',
    start_at: '2027-01-01T00:00:00Z',
    all_day: true,
    calendar_name: 'birthdays',
  })
  t.equal(create.status, 403)
  t.match(create.body.error, { code: 'FORBIDDEN', details: { field: 'calendar_name', constraint: 'read_only' } })
  const dentist = (await call('GET', '/events')).body.data[0]
  const move = await call('PATCH', `/events/${dentist.id}`, { calendar_name: 'birthdays' })
  t.equal(move.status, 403)
  t.equal((await call('GET', `/events/${dentist.id}`)).body.data.calendar_name, 'default', 'not moved')
  const patch = await call('PATCH', `/events/${first.id}`, { title: 'x' })
  t.equal(patch.status, 404, 'its events are not stored records')
  const share = await call('POST', '/shares', { kind: 'calendar', name: 'birthdays', with: 'someone@example.test', access: 'read' })
  t.equal(share.status, 400)
  t.match(share.body.error.details, { field: 'name', constraint: 'read_only' })
  const wide = await call('GET', '/events?calendar_name=birthdays&from=1000-01-01&to=9999-12-31')
  t.equal(wide.status, 422, 'the occurrence bound applies')
  t.match(wide.body.error, { code: 'UNPROCESSABLE', details: { field: 'from', constraint: 'max_occurrences' } })
  t.equal(leap.birthday, '--02-29')
})

t.test('shares: a sharee reads the birthdays of a shared address book; a non-sharee never does', async (t) => {
  const { members } = await household(t, { size: 3 })
  const [parent, kid, guest] = members as [(typeof members)[0], (typeof members)[0], (typeof members)[0]]
  await parent.call('POST', '/contacts', { display_name: 'Grandma', birthday: '1950-05-03' })
  await kid.call('POST', '/contacts', { display_name: 'Best friend', birthday: '--05-04' })
  const range = '/events?calendar_name=birthdays&from=2027-05-01&to=2027-05-31'
  const titles = async (m: typeof parent, path = range) => (await m.call('GET', path)).body.data.map((e: { title: string }) => e.title)

  t.same(await titles(kid), ["Best friend's birthday"], 'before sharing: their own only')
  const share = (await parent.call('POST', '/shares', { kind: 'addressbook', with: kid.id, access: 'read' })).body.data
  t.same(await titles(kid), ["Grandma's birthday", "Best friend's birthday"], 'the shared address book brings its birthdays')
  t.same(await titles(kid, `${range}&owner=me`), ["Best friend's birthday"], 'owner=me: their own')
  t.same(await titles(guest), [], 'a member it is not shared with sees none')
  t.same(await titles(parent), ["Grandma's birthday"], "the owner does not see the sharee's")
  await parent.call('DELETE', `/shares/${share.id}`)
  t.same(await titles(kid), ["Best friend's birthday"], 'unshared: gone at once')
})
