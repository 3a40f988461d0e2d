import { readFileSync } from 'node:fs'
import t from 'tap'
import { sourcePath } from '../../../test/paths.js'
import type { ContactRecord } from '../formats/types.js'
import { parseVCards } from '../formats/vcard-parse.js'
import { serializeVCards } from '../formats/vcard-serialize.js'

const fixture = (name: string) => readFileSync(sourcePath(import.meta.url, `fixtures/${name}`), 'utf8')
const octets = (line: string) => Buffer.byteLength(line)

t.test('Apple Contacts vCard 3.0: labels, groups, folded lines, escapes', async (t) => {
  const { entries, failed } = parseVCards(fixture('apple-contacts-3.0.vcf'))
  t.same(failed, [])
  t.equal(entries.length, 2)
  const johnny = entries[0].record
  t.match(johnny, {
    display_name: 'Johnny Appleseed',
    first_name: 'Johnny',
    last_name: 'Appleseed',
    company: 'Apple Inc.',
    job_title: 'Senior Engineer, Frameworks',
    groups: ['Work', 'Friends'],
    tags: [],
    birthday: '1980-04-01',
    avatar_path: null,
  })
  t.same(johnny.emails, [
    { address: 'johnny@apple.example', label: 'work', primary: true },
    { address: 'johnny.home@example.com', label: 'personal', primary: false },
    { address: 'jappleseed@other.example', label: 'other', primary: false },
  ])
  t.same(johnny.phones, [
    { number: '+1 (408) 555-0101', label: 'mobile', primary: true },
    { number: '+1 408 555 0102', label: 'work', primary: false },
    { number: '+1 408 555 0103', label: 'home', primary: false },
  ])
  t.same(johnny.addresses, [
    { street: '1 Apple Park Way', city: 'Cupertino', state: 'CA', postal_code: '95014', country: 'United States', label: 'work' },
    { street: '20 Infinite Loop\nApt 4', city: 'Cupertino', state: 'CA', postal_code: '95014', country: 'United States', label: 'home' },
  ])
  t.equal(
    johnny.notes,
    'Met at WWDC, June 2019. Likes: coffee; tea and long walks. Remember to ask about the garden project next time we meet, it was half done.\nSecond line of the note.',
  )
  t.same(johnny.custom_fields, {
    department: 'Engineering',
    'x-abuid': '5AD380FD-B2DE-4261-BA99-DE1D1DB52FBE:ABPerson',
  })
  t.equal(entries[0].line, 1)

  const grocer = entries[1].record
  t.match(grocer, { display_name: 'Green Grocer Ltd', first_name: null, last_name: null, company: 'Green Grocer Ltd' })
  t.same(grocer.phones, [{ number: '020 7946 0018', label: 'work', primary: true }])
  t.same(grocer.urls, [{ url: 'https://greengrocer.example', label: 'HomePage' }], "Apple's grouped label")
  t.same(grocer.custom_fields, {
    'x-abshowas': 'COMPANY',
    'x-abuid': '0E6C8D1A-7B42-4E3D-8C4B-1F7A9E2B6C11:ABPerson',
  })
})

t.test('Nextcloud vCard 4.0: PREF, tel: URIs, quoted TYPE lists, UTF-8', async (t) => {
  const { entries, failed } = parseVCards(fixture('nextcloud-4.0.vcf'))
  t.same(failed, [])
  const ana = entries[0].record
  t.match(ana, {
    display_name: 'Ana María Ölund-Schmidt',
    first_name: 'Ana María',
    last_name: 'Ölund-Schmidt',
    company: 'Firma GmbH',
    job_title: 'CTO',
  })
  t.same(ana.emails, [
    { address: 'ana@firma.example', label: 'work', primary: true },
    { address: 'ana@privat.example', label: 'personal', primary: false },
  ])
  t.same(ana.phones, [
    { number: '+49-170-5550123', label: 'mobile', primary: false },
    { number: '+49 30 5550100', label: 'work', primary: true },
  ])
  t.same(ana.addresses, [
    { street: 'Hauptstraße 5, Hinterhaus', city: 'Berlin', state: 'Berlin', postal_code: '10115', country: 'Deutschland', label: 'home' },
  ])
  t.equal(
    ana.notes,
    'Spricht Deutsch, Englisch und Schwedisch. Bevorzugt Termine vormittags – nie vor 9 Uhr. Pfad: C:\\Users\\ana\nZweite Zeile; mit Semikolon.',
  )
  t.same(ana.groups, ['Kunden', 'VIP', 'Team, Berlin'])
  t.same(ana.custom_fields, { 'x-manager': 'Jörg Weber' })
  t.equal(ana.updated_at, '2026-11-01T12:00:00.000Z')
  t.match(entries[1].record, { display_name: 'Li Wei', phones: [{ number: '+86 138 0013 8000', label: 'mobile' }] })
})

t.test('broken cards are reported with index and line; the good ones still parse', async (t) => {
  const { entries, failed } = parseVCards(fixture('broken.vcf'))
  t.same(
    entries.map((e) => [e.index, e.record.display_name]),
    [
      [0, 'Good One'],
      [4, 'Good Two'],
    ],
  )
  t.same(
    failed.map((f) => [f.index, f.line]),
    [
      [1, 7],
      [2, 11],
      [3, 16],
    ],
  )
  t.match(failed[0].error, /no FN, N or ORG/)
  t.match(failed[1].error, /line 14: expected ':'/)
  t.match(failed[2].error, /never closed/)
})

const tricky: ContactRecord = {
  display_name: 'Smith, John; Jr. \\ the "Third"',
  first_name: 'John',
  last_name: 'Smith; Jr.',
  emails: [
    { address: 'john@work.example', label: 'work', primary: false },
    { address: 'john@home.example', label: 'personal', primary: true },
    { address: 'john@misc.example', label: 'other', primary: false },
  ],
  phones: [
    { number: '+44 20 7946 0000', label: 'home', primary: true },
    { number: '+44 7700 900000', label: 'mobile', primary: false },
    { number: '100', label: 'work', primary: false },
    { number: '101', label: 'other', primary: false },
  ],
  company: 'Smith & Sons, Ltd; Est. 1900',
  job_title: 'Chief, Things',
  addresses: [
    { street: '1 Long Road, Flat 2\nBuilding B', city: 'London', state: null, postal_code: 'SW1A 1AA', country: 'UK', label: 'home' },
    { street: null, city: 'Paris', state: null, postal_code: null, country: 'France', label: null },
  ],
  notes: `Line one, with comma; and semicolon \\ backslash\nLine two: ${'ü'.repeat(60)} and more text to force a fold`,
  avatar_path: '/srv/photos/john smith.jpg',
  tags: ['family', 'a,b', 'semi;colon'],
  nickname: 'Johnny, Jr.',
  birthday: '--02-29',
  anniversary: '2004-06-12',
  urls: [
    { url: 'https://a.example/?q=1,2;3', label: null },
    { url: 'https://b.example', label: 'work' },
    { url: 'https://c.example', label: 'Blog, personal' },
  ],
  groups: ['Book club', 'a,b', 'semi;colon'],
  custom_fields: {
    score: 42,
    nested: { deep: [1, 'two'] },
    'Odd Key;:,': 'v',
  },
  source: 'google_contacts',
  updated_at: '2026-11-20T10:11:12.000Z',
}

for (const version of ['4.0', '3.0'] as const) {
  t.test(`round trip through vCard ${version} is lossless and folds at 75 octets`, async (t) => {
    const second = {
      ...tricky,
      display_name: 'Second',
      custom_fields: null,
      tags: [],
      groups: [],
      urls: [],
      birthday: '1996-02-29',
      anniversary: null,
      nickname: null,
    }
    const text = serializeVCards([tricky, second], version)
    t.ok(text.endsWith('END:VCARD\r\n'))
    for (const line of text.split('\r\n')) t.ok(octets(line) <= 75, `line within 75 octets: ${line}`)
    t.match(text, `VERSION:${version}`)
    t.match(text, version === '4.0' ? /EMAIL;TYPE=home;PREF=1:john@home\.example/ : /EMAIL;TYPE=internet,home,pref:john@home\.example/)
    const { entries, failed } = parseVCards(text)
    t.same(failed, [])
    t.same(entries[0].record, tricky)
    t.same(entries[1].record, second)
    // The year-less birthday in each version's form: 4.0's --MMDD, 3.0's Apple year 1604.
    t.match(text, version === '4.0' ? 'BDAY:--0229' : 'BDAY;X-APPLE-OMIT-YEAR=1604:1604-02-29')
    t.match(text, version === '4.0' ? 'ANNIVERSARY:20040612' : 'hearth-anniversary.X-ABDATE:2004-06-12')
  })
}

t.test('fixtures survive parse → serialize → parse in both versions', async (t) => {
  for (const name of ['apple-contacts-3.0.vcf', 'nextcloud-4.0.vcf']) {
    const first = parseVCards(fixture(name)).entries.map((e) => e.record)
    for (const version of ['3.0', '4.0'] as const) {
      const again = parseVCards(serializeVCards(first, version)).entries.map((e) => e.record)
      t.same(again, first, `${name} via ${version}`)
    }
  }
})

t.test('the lowest PREF wins the primary flag; only one primary per list', async (t) => {
  const card = [
    'BEGIN:VCARD',
    'VERSION:4.0',
    'FN:Pref Test',
    'EMAIL;PREF=50:a@example.com',
    'EMAIL;PREF=3:b@example.com',
    'EMAIL;TYPE=work;PREF=3:c@example.com',
    'TEL:1',
    'TEL;TYPE=pref,home:2',
    'TEL;TYPE=pref:3',
    'END:VCARD',
  ].join('\r\n')
  const [{ record }] = parseVCards(card).entries
  t.same(
    record.emails.map((e) => e.primary),
    [false, true, false],
  )
  t.same(
    record.phones.map((p) => p.primary),
    [false, true, false],
  )
})

t.test('Android vCard 2.1: quoted-printable with soft line breaks, bare TYPE parameters, group cards refused', async (t) => {
  const { entries, failed } = parseVCards(fixture('android-2.1.vcf'))
  t.same(
    entries.map((e) => e.index),
    [0, 2],
  )
  t.match(entries[0].record, {
    display_name: 'Jörg Ölund',
    first_name: 'Jörg',
    last_name: 'Ölund',
    company: 'Gärtnerei Ölund',
    notes: 'Erste Zeile\nZweite Zeile mit einem sehr langen Text, der umbrochen wird',
    emails: [{ address: 'joerg@example.de', label: 'personal', primary: false }],
  })
  t.same(entries[0].record.phones, [
    { number: '+49 170 1234567', label: 'mobile', primary: true },
    { number: '030 123456', label: 'home', primary: false },
  ])
  t.match(entries[1].record, { display_name: 'Anna Weber', phones: [{ label: 'work' }] })
  t.match(failed, [{ index: 1, line: 12, error: /groups/ }])
})

t.test("ORG's unit is written in ORG's second component, where other clients read it", async (t) => {
  const contact = {
    display_name: 'Ana Ölund',
    first_name: 'Ana',
    last_name: 'Ölund',
    emails: [],
    phones: [],
    company: 'Acme; Sons',
    job_title: null,
    addresses: [],
    notes: null,
    avatar_path: null,
    tags: [],
    custom_fields: { department: 'Research, Lab 2' },
  }
  for (const version of ['4.0', '3.0'] as const) {
    const text = serializeVCards([contact as never], version)
    t.match(text, 'ORG:Acme\\; Sons;Research\\, Lab 2', `vCard ${version}`)
    t.notMatch(text, /department/i, 'not in a private X- property')
    const [entry] = parseVCards(text).entries
    t.equal(entry?.record.company, 'Acme; Sons')
    t.same(entry?.record.custom_fields, { department: 'Research, Lab 2' }, 'and read back the same')
  }
})
