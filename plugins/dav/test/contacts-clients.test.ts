import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { noPythonModule, PYTHON, startDaemon } from './daemon.js'

/**
 * Contacts' new details and the birthdays calendar with real clients against a daemon process:
 * vCards written by Debian's python3-vobject with every new field, through the vCard import and
 * export (3.0 and 4.0) and through CardDAV with a change made on the JSON side in between, read
 * back by python3-vobject field by field; python3-caldav discovering the birthdays calendar,
 * reading its events, and refused when it writes there.
 */
const noVobject = noPythonModule('vobject')
const noCaldav = noPythonModule('caldav')

/** Two cards as python3-vobject serializes them: one in the plain vCard forms, one in Apple's. */
const GENERATE = String.raw`
import vobject
def card(uid, fn, family, given):
    c = vobject.vCard()
    c.add('uid').value = uid
    c.add('fn').value = fn
    c.add('n').value = vobject.vcard.Name(family=family, given=given)
    return c
plain = card('plain-1', 'Ada Lovelace', 'Lovelace', 'Ada')
plain.add('nickname').value = 'Countess'
plain.add('bday').value = '1815-12-10'
plain.add('x-anniversary').value = '1835-07-08'
u = plain.add('url'); u.value = 'https://example.org/ada'; u.type_param = 'WORK'
plain.add('url').value = 'https://example.org/notes?a=1&b=2'
plain.add('categories').value = ['Family', 'Book club']
plain.add('x-shoe-size').value = '38'
apple = card('APPLE-2', 'Leap Day', 'Day', 'Leap')
b = apple.add('bday'); b.value = '1604-02-29'; b.x_apple_omit_year_param = '1604'
d = apple.add('item1.x-abdate'); d.value = '2010-06-12'
apple.add('item1.x-ablabel').value = '_$!<Anniversary>!$_'
w = apple.add('item2.url'); w.value = 'https://blog.example'
apple.add('item2.x-ablabel').value = 'Blog'
apple.add('x-abuid').value = 'APPLE-2:ABPerson'
print(plain.serialize() + apple.serialize(), end='')
`

/** The new details of each card, as python3-vobject reads them (Apple's grouped forms resolved). */
const READ = String.raw`
import json, sys, vobject
def day(line):
    # A date compared as YYYYMMDD, or --MMDD without a year (Apple's 1604 + X-APPLE-OMIT-YEAR resolved).
    v = line.value
    if v.startswith('--'):
        return '--' + v[2:].replace('-', '')
    v = v.replace('-', '')[:8]
    omit = line.params.get('X-APPLE-OMIT-YEAR', [None])[0]
    return '--' + v[4:8] if omit and v[:4] == omit else v
def details(c):
    out = {}
    labels = {}
    for line in c.getChildren():
        if line.name == 'X-ABLABEL' and line.group:
            labels[line.group] = line.value
    urls = []
    for line in c.getChildren():
        name, value = line.name, line.value
        if name == 'NICKNAME': out['nickname'] = value
        elif name == 'BDAY': out['birthday'] = day(line)
        elif name in ('ANNIVERSARY', 'X-ANNIVERSARY'): out['anniversary'] = day(line)
        elif name == 'X-ABDATE' and labels.get(line.group) == '_$!<Anniversary>!$_': out['anniversary'] = day(line)
        elif name == 'URL':
            label = labels.get(line.group) if line.group else line.params.get('TYPE', [None])[0]
            urls.append([value, (label or '').lower() or None])
        elif name == 'CATEGORIES': out['groups'] = sorted(value)
        elif name == 'X-SHOE-SIZE': out['x-shoe-size'] = value
        elif name == 'TITLE': out['title'] = value
    out['urls'] = sorted(urls, key=lambda u: u[0])
    return out
result = {}
for path in sys.argv[1:]:
    cards = {}
    for c in vobject.readComponents(open(path).read()):
        cards[c.fn.value] = details(c)
    result[path] = cards
print(json.dumps(result))
`

t.test('python3-vobject cards round-trip through import/export and through CardDAV', { skip: noVobject }, async (t) => {
  const d = await startDaemon(t)
  const gen = spawnSync(PYTHON, ['-c', GENERATE], { encoding: 'utf8' })
  t.equal(gen.status, 0, gen.stderr)
  const original = gen.stdout
  const form = new FormData()
  form.append('file', new Blob([original], { type: 'text/vcard' }), 'cards.vcf')
  const imported = (await (
    await fetch(`${d.base}/api/v1/contacts/import`, { method: 'POST', headers: { authorization: `Bearer ${d.token}` }, body: form })
  ).json()) as { data: { imported: number; failed: unknown[] } }
  t.equal(imported.data.imported, 2, JSON.stringify(imported.data.failed))
  const contacts = (await d.json('GET', '/api/v1/contacts?limit=10')).body.data
  const ada = contacts.find((c: { display_name: string }) => c.display_name === 'Ada Lovelace')
  const leap = contacts.find((c: { display_name: string }) => c.display_name === 'Leap Day')
  t.match(ada, {
    nickname: 'Countess',
    birthday: '1815-12-10',
    anniversary: '1835-07-08',
    groups: ['Family', 'Book club'],
    urls: [
      { url: 'https://example.org/ada', label: 'work' },
      { url: 'https://example.org/notes?a=1&b=2', label: null },
    ],
  })
  t.match(leap, { birthday: '--02-29', anniversary: '2010-06-12', urls: [{ url: 'https://blog.example', label: 'Blog' }] })

  const exported: Record<string, string> = {}
  for (const version of ['3.0', '4.0']) {
    exported[version] = await (
      await fetch(`${d.base}/api/v1/contacts/export?version=${version}`, { headers: { authorization: `Bearer ${d.token}` } })
    ).text()
  }

  // The same cards through CardDAV, then a change on the JSON side, then read back.
  const auth = `Basic ${Buffer.from(`${d.email}:${d.key}`).toString('base64')}`
  // Other UIDs than the imported ones: a UID is one contact's (a second would be refused, 409).
  const cards = original
    .replace('UID:plain-1', 'UID:plain-dav')
    .replace('UID:APPLE-2', 'UID:APPLE-DAV')
    .split(/(?=BEGIN:VCARD)/)
  for (const [i, card] of cards.entries()) {
    const put = await fetch(`${d.base}/dav/addressbooks/contacts/card-${i}.vcf`, {
      method: 'PUT',
      headers: { authorization: auth, 'content-type': 'text/vcard' },
      body: card,
    })
    t.equal(put.status, 201, `PUT card ${i}`)
    const back = await (await fetch(`${d.base}/dav/addressbooks/contacts/card-${i}.vcf`, { headers: { authorization: auth } })).text()
    t.equal(back, card, 'unchanged: given back as written')
  }
  const davAda = (await d.json('GET', '/api/v1/contacts?search=lovelace&source=dav')).body.data[0]
  const davLeap = (await d.json('GET', '/api/v1/contacts?search=leap&source=dav')).body.data[0]
  await d.json('PATCH', `/api/v1/contacts/${davAda.id}`, { job_title: 'Analyst' })
  await d.json('PATCH', `/api/v1/contacts/${davLeap.id}`, { job_title: 'Analyst' })
  let dav = ''
  for (const i of cards.keys()) {
    dav += await (await fetch(`${d.base}/dav/addressbooks/contacts/card-${i}.vcf`, { headers: { authorization: auth } })).text()
  }
  t.match(dav, 'X-SHOE-SIZE:38', 'an unknown property survives the JSON-side change')
  t.match(dav, 'X-ABUID:APPLE-2:ABPerson')

  const files = { original, 'export 3.0': exported['3.0'], 'export 4.0': exported['4.0'], CardDAV: dav }
  const paths = Object.keys(files).map((name) => join(d.dir, `${name.replace(/\W/g, '-')}.vcf`))
  Object.values(files).forEach((text, i) => writeFileSync(paths[i] as string, text as string))
  const read = spawnSync(PYTHON, ['-c', READ, ...paths], { encoding: 'utf8' })
  t.equal(read.status, 0, read.stderr)
  const parsed = JSON.parse(read.stdout) as Record<string, Record<string, Record<string, unknown>>>
  const expected = parsed[paths[0] as string] as Record<string, Record<string, unknown>>
  t.same(expected['Leap Day']?.birthday, '--0229', 'the reader itself resolves the Apple year')
  Object.keys(files).forEach((label, i) => {
    if (i === 0) return
    const got = parsed[paths[i] as string] as Record<string, Record<string, unknown>>
    for (const name of Object.keys(expected)) {
      const want = { ...expected[name] }
      if (label === 'CardDAV') want.title = 'Analyst'
      // Import/export writes Hearth's own custom-field line for an X- property; CardDAV writes the client's.
      if (label !== 'CardDAV') delete want['x-shoe-size']
      const have = { ...got[name] }
      if (label !== 'CardDAV') delete have['x-shoe-size']
      t.same(have, want, `${label}: ${name} field by field`)
    }
  })
})

const CALDAV = String.raw`
import caldav, json, sys
from datetime import date
url, user, password = sys.argv[1:4]
client = caldav.DAVClient(url + '/dav/', username=user, password=password)
principal = client.principal()
calendars = principal.calendars()
out = {'calendars': sorted(str(c.url) for c in calendars)}
birthdays = [c for c in calendars if str(c.url).endswith('/birthdays/')][0]
out['name'] = birthdays.get_display_name()
events = birthdays.date_search(start=date(2027, 1, 1), end=date(2028, 1, 1), expand=False)
out['events'] = sorted(e.instance.vevent.summary.value for e in events)
try:
    birthdays.save_event('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:party\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20270101\r\nSUMMARY:Party\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n')
    out['save'] = 'accepted'
except Exception as e:
    out['save'] = type(e).__name__ + ': ' + str(e)[:200]
print(json.dumps(out))
`

t.test('python3-caldav: the birthdays calendar is discovered, read, and refuses writes', { skip: noCaldav }, async (t) => {
  const d = await startDaemon(t)
  await d.json('POST', '/api/v1/contacts', { display_name: 'Ada', birthday: '1815-12-10', anniversary: '--07-08' })
  await d.json('POST', '/api/v1/contacts', { display_name: 'Leap', birthday: '--02-29' })
  const r = spawnSync(PYTHON, ['-c', CALDAV, d.base, d.email, d.key], { encoding: 'utf8', timeout: 60_000 })
  t.equal(r.status, 0, r.stderr.slice(-3000))
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}')
  t.ok(out.calendars.includes(`${d.base}/dav/calendars/birthdays/`), 'discovered beside the other calendars')
  t.equal(out.name, 'Birthdays')
  t.same(out.events, ["Ada's anniversary", "Ada's birthday", "Leap's birthday"])
  t.match(out.save, /Error/, 'a PUT into it is refused')
  t.equal((await d.json('GET', '/api/v1/events?calendar_name=birthdays')).body.meta.total, 3, 'nothing was added')
})
