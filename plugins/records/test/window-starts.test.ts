import t, { type Test } from 'tap'
import { household, type Member } from './sharing-app.js'

/**
 * A ranged events list keeps each series' occurrence starts for the window (by the series'
 * version) and merges them: every test asks the same window before and after a change and
 * expects the change, never what was kept. The series repeat in Europe/Paris across the change
 * to summer time (2027-03-28), so the kept starts are instants, not wall times.
 */
const WINDOW = 'from=2027-03-15T00:00:00Z&to=2027-04-11T23:59:59Z'

type Item = { title: string; start_at: string; recurrence_id: string | null }
const shown = (e: Item) => `${e.title} ${new Date(e.start_at).toISOString()}`

async function listed(who: Member, query = '') {
  const res = await who.call('GET', `/events?${WINDOW}&limit=100${query}`)
  if (res.status !== 200) throw new Error(`the list answered ${res.status}: ${JSON.stringify(res.body)}`)
  return { total: res.body.meta.total as number, items: (res.body.data as Item[]).map(shown) }
}

/** Mondays 09:00 in Paris: 08:00Z before the change, 07:00Z after. */
const PARIS_MONDAYS = ['2027-03-15T08:00:00.000Z', '2027-03-22T08:00:00.000Z', '2027-03-29T07:00:00.000Z', '2027-04-05T07:00:00.000Z']

/** The parent's Family calendar: two series at the same times (a tie), a plain event at one of them, a series in UTC. */
async function family(t: Test) {
  const { members } = await household(t)
  const [parent, kid] = members as [Member, Member]
  const make = async (body: Record<string, unknown>) => {
    const res = await parent.call('POST', '/events', { calendar_name: 'Family', ...body })
    t.equal(res.status, 201, `made ${String(body.title)}`)
    return res.body.data as { id: string }
  }
  const weekly = { freq: 'WEEKLY' }
  const swim = await make({ title: 'Swim', start_at: '2027-03-01T08:00:00Z', timezone: 'Europe/Paris', recurrence: weekly })
  const choir = await make({ title: 'Choir', start_at: '2027-03-01T08:00:00Z', timezone: 'Europe/Paris', recurrence: weekly })
  await make({ title: 'Dinner', start_at: '2027-03-22T08:00:00Z', timezone: 'Europe/Paris' })
  await make({ title: 'Yoga', start_at: '2027-03-03T18:00:00Z', timezone: 'UTC', recurrence: weekly })
  return { parent, kid, swim, choir }
}

/** The whole list: by start, ties in the order the events were made (Swim, Choir, Dinner, Yoga). */
function expected(entries: Array<[title: string, starts: string[]]>): string[] {
  return entries
    .flatMap(([title, starts], made) => starts.map((at) => ({ at, made, text: `${title} ${at}` })))
    .sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : x.made - y.made))
    .map((e) => e.text)
}
const YOGA = ['2027-03-17T18:00:00.000Z', '2027-03-24T18:00:00.000Z', '2027-03-31T18:00:00.000Z', '2027-04-07T18:00:00.000Z']

t.test('the same window asked again: Paris times across the change, ties by creation, every page a slice', async (t) => {
  const { parent } = await family(t)
  const whole = expected([
    ['Swim', PARIS_MONDAYS],
    ['Choir', PARIS_MONDAYS],
    ['Dinner', ['2027-03-22T08:00:00.000Z']],
    ['Yoga', YOGA],
  ])
  const first = await listed(parent)
  t.same(first.items, whole, 'an hour earlier in UTC from 29 March; Swim, Choir, then Dinner at the same instant')
  t.equal(first.total, 13)
  t.same(await listed(parent), first, 'asked again (its starts kept): the same answer')
  const tiled: string[] = []
  for (let offset = 0; offset < whole.length; offset += 3) {
    const page = await parent.call('GET', `/events?${WINDOW}&limit=3&offset=${offset}`)
    t.equal(page.body.meta.total, 13)
    tiled.push(...(page.body.data as Item[]).map(shown))
  }
  t.same(tiled, whole, 'pages of 3 at every offset tile the list')
  t.same((await listed(parent, '&order=desc')).items, [...whole].reverse(), 'descending: the same list reversed, ties too')
  const byTitle = (await listed(parent, '&sort=title')).items
  t.same(
    byTitle,
    [...whole].sort((a, b) => a.split(' ')[0]?.localeCompare(b.split(' ')[0] ?? '') ?? 0),
    'by title: each series together',
  )
})

t.test('a series edited between two identical lists: its new start, then its new zone', async (t) => {
  const { parent, swim } = await family(t)
  const swims = async () => (await listed(parent)).items.filter((i) => i.startsWith('Swim'))
  t.same(
    await swims(),
    PARIS_MONDAYS.map((at) => `Swim ${at}`),
  )
  t.equal((await parent.call('PATCH', `/events/${swim.id}`, { start_at: '2027-03-01T09:30:00Z' })).status, 200)
  t.same(
    await swims(),
    ['2027-03-15T09:30:00.000Z', '2027-03-22T09:30:00.000Z', '2027-03-29T08:30:00.000Z', '2027-04-05T08:30:00.000Z'].map(
      (at) => `Swim ${at}`,
    ),
    '10:30 in Paris, whatever was kept for the window',
  )
  // Only the zone changes: the same start_at, the rule now held in UTC (no shift at the end of March).
  t.equal((await parent.call('PATCH', `/events/${swim.id}`, { timezone: 'UTC' })).status, 200)
  t.same(
    await swims(),
    ['2027-03-15T09:30:00.000Z', '2027-03-22T09:30:00.000Z', '2027-03-29T09:30:00.000Z', '2027-04-05T09:30:00.000Z'].map(
      (at) => `Swim ${at}`,
    ),
  )
})

t.test('one occurrence deleted (an exdate), one overridden, the override erased: the list follows each', async (t) => {
  const { parent, choir } = await family(t)
  const choirs = async () => {
    const { total, items } = await listed(parent)
    return { total, choir: items.filter((i) => i.startsWith('Choir')) }
  }
  t.same(await choirs(), { total: 13, choir: PARIS_MONDAYS.map((at) => `Choir ${at}`) })
  const removed = await parent.call('DELETE', `/events/${choir.id}?scope=this&occurrence_start=${PARIS_MONDAYS[1]}`)
  t.equal(removed.status, 200)
  t.same(await choirs(), { total: 12, choir: [0, 2, 3].map((i) => `Choir ${PARIS_MONDAYS[i]}`) }, 'the 22nd is gone')

  const moved = await parent.call('PATCH', `/events/${choir.id}?scope=this&occurrence_start=${PARIS_MONDAYS[2]}`, {
    title: 'Choir (moved)',
    start_at: '2027-03-30T16:00:00Z',
  })
  t.equal(moved.status, 200)
  t.same(
    await choirs(),
    { total: 12, choir: [`Choir ${PARIS_MONDAYS[0]}`, 'Choir (moved) 2027-03-30T16:00:00.000Z', `Choir ${PARIS_MONDAYS[3]}`] },
    'the override stands in for the 29th, once',
  )
  // Erased for good, the override's start joins the series' exdates (a trigger): neither shows.
  t.equal((await parent.call('DELETE', `/events/${moved.body.data.id}?permanent=true`)).status, 200)
  t.same(await choirs(), { total: 11, choir: [0, 3].map((i) => `Choir ${PARIS_MONDAYS[i]}`) })
})

t.test('a calendar unshared between two identical lists is gone from the next; shared again, as it is now', async (t) => {
  const { parent, kid, swim } = await family(t)
  const share = await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.id, access: 'read' })
  t.equal(share.status, 201)
  const mine = await listed(parent)
  t.same(await listed(kid), mine, 'the kid reads the calendar as its owner does')
  t.equal((await parent.call('DELETE', `/shares/${share.body.data.id}`)).status, 200)
  t.same(await listed(kid), { total: 0, items: [] }, 'the very next list: nothing of it')
  t.equal((await parent.call('PATCH', `/events/${swim.id}`, { title: 'Swim club' })).status, 200)
  t.equal((await parent.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.id, access: 'read' })).status, 201)
  const again = await listed(kid)
  t.equal(again.total, 13)
  t.same(
    again.items.filter((i) => i.startsWith('Swim')),
    PARIS_MONDAYS.map((at) => `Swim club ${at}`),
  )
})
