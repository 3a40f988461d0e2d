import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { hasTool, startDaemon } from './daemon.js'

/**
 * vdirsyncer (Debian's package) syncing a local folder both ways with a daemon: discovery from the
 * bare server URL (well-known → principal → homes), then create, change and delete on each side.
 */
const skip = hasTool('vdirsyncer') ? false : 'vdirsyncer is not installed (apt install vdirsyncer; .ci/run installs it)'
{
  t.test('vdirsyncer: contacts and a calendar, both ways', { skip }, async (t) => {
    const d = await startDaemon(t)
    const local = join(d.dir, 'local')
    const config = join(d.dir, 'vdirsyncer.conf')
    writeFileSync(
      config,
      `[general]
status_path = "${join(d.dir, 'status')}/"

[pair contacts]
a = "contacts_local"
b = "contacts_remote"
collections = ["from b"]
conflict_resolution = "b wins"

[storage contacts_local]
type = "filesystem"
path = "${local}/contacts/"
fileext = ".vcf"

[storage contacts_remote]
type = "carddav"
url = "${d.base}/"
username = "${d.email}"
password = "${d.key}"

[pair calendars]
a = "calendars_local"
b = "calendars_remote"
collections = ["from b"]
conflict_resolution = "b wins"

[storage calendars_local]
type = "filesystem"
path = "${local}/calendars/"
fileext = ".ics"

[storage calendars_remote]
type = "caldav"
url = "${d.base}/"
username = "${d.email}"
password = "${d.key}"
`,
    )
    mkdirSync(join(local, 'contacts'), { recursive: true })
    mkdirSync(join(local, 'calendars'), { recursive: true })
    const run = (...args: string[]) => {
      const r = spawnSync('vdirsyncer', ['-c', config, ...args], { input: 'y\ny\ny\ny\n', encoding: 'utf8', timeout: 60_000 })
      t.equal(r.status, 0, `vdirsyncer ${args.join(' ')}: ${r.stderr.slice(-2000)}`)
    }
    const files = (dir: string) => readdirSync(dir).filter((f) => !f.startsWith('.'))

    // Remote first: a contact and an event made through the JSON API (and one of each that stays:
    // vdirsyncer refuses to sync a side emptied completely).
    await d.json('POST', '/api/v1/contacts', { display_name: 'Keeper' })
    await d.json('POST', '/api/v1/events', { title: 'Keeper', start_at: '2026-04-01T10:00:00Z' })
    const ann = (await d.json('POST', '/api/v1/contacts', { display_name: 'Ann Remote', emails: [{ address: 'ann@example.test' }] })).body
      .data
    const gym = (await d.json('POST', '/api/v1/events', { title: 'Gym', start_at: '2026-03-02T18:00:00Z' })).body.data
    run('discover')
    run('sync')
    const book = join(local, 'contacts', 'contacts')
    const cal = join(local, 'calendars', 'default')
    t.same(files(book).length, 2, 'the remote contact reached the folder')
    t.ok(files(book).some((f) => readFileSync(join(book, f), 'utf8').includes('FN:Ann Remote')))
    t.same(files(cal).length, 2, 'the remote event reached the folder')
    t.ok(files(cal).some((f) => readFileSync(join(cal, f), 'utf8').includes('SUMMARY:Gym')))

    // Local side: create, then sync.
    writeFileSync(
      join(book, 'bob-local.vcf'),
      'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob-local\r\nFN:Bob Local\r\nN:Local;Bob;;;\r\nTEL;TYPE=CELL:+33 6 12 34 56 78\r\nX-CUSTOM-THING:kept\r\nEND:VCARD\r\n',
    )
    writeFileSync(
      join(cal, 'dentist.ics'),
      'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//local//EN\r\nBEGIN:VEVENT\r\nUID:dentist-local\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260310T080000Z\r\nDTEND:20260310T090000Z\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n',
    )
    run('sync')
    let contacts = (await d.json('GET', '/api/v1/contacts?limit=100')).body.data
    const bob = contacts.find((c: { display_name: string }) => c.display_name === 'Bob Local')
    t.ok(bob, 'the local contact reached Hearth')
    t.same(bob?.phones?.[0]?.number, '+33 6 12 34 56 78')
    let events = (await d.json('GET', '/api/v1/events?limit=100')).body.data
    const dentist = events.find((e: { title: string }) => e.title === 'Dentist')
    t.ok(dentist, 'the local event reached Hearth')

    // Local change.
    writeFileSync(
      join(book, 'bob-local.vcf'),
      'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob-local\r\nFN:Bob Changed\r\nN:Changed;Bob;;;\r\nTEL;TYPE=CELL:+33 6 12 34 56 78\r\nX-CUSTOM-THING:kept\r\nEND:VCARD\r\n',
    )
    run('sync')
    t.equal((await d.json('GET', `/api/v1/contacts/${bob.id}`)).body.data.display_name, 'Bob Changed', 'a local change reached Hearth')

    // Remote change.
    await d.json('PATCH', `/api/v1/contacts/${ann.id}`, { job_title: 'Pilot' })
    await d.json('PATCH', `/api/v1/events/${gym.id}`, { location: 'Pool' })
    run('sync')
    const annFile = files(book).find((f) => readFileSync(join(book, f), 'utf8').includes('Ann Remote')) as string
    t.match(readFileSync(join(book, annFile), 'utf8'), 'TITLE:Pilot', 'a remote change reached the folder')
    const gymFile = files(cal).find((f) => readFileSync(join(cal, f), 'utf8').includes('SUMMARY:Gym')) as string
    t.match(readFileSync(join(cal, gymFile), 'utf8'), 'LOCATION:Pool')
    t.match(readFileSync(join(book, 'bob-local.vcf'), 'utf8'), 'X-CUSTOM-THING:kept', 'what Hearth has no field for survives')

    // Local delete.
    rmSync(join(book, 'bob-local.vcf'))
    rmSync(join(cal, 'dentist.ics'))
    run('sync')
    t.equal((await d.json('GET', `/api/v1/contacts/${bob.id}`)).status, 404, 'a local delete reached Hearth')
    t.equal((await d.json('GET', `/api/v1/events/${dentist.id}`)).status, 404)
    contacts = (await d.json('GET', '/api/v1/contacts?only_deleted=true')).body.data
    t.ok(
      contacts.some((c: { id: string }) => c.id === bob.id),
      'into the trash, as the JSON API deletes',
    )

    // Remote delete.
    await d.json('DELETE', `/api/v1/contacts/${ann.id}`)
    await d.json('DELETE', `/api/v1/events/${gym.id}`)
    run('sync')
    t.equal(files(book).length, 1, 'a remote delete reached the folder')
    t.equal(files(cal).length, 1)
    t.match(readFileSync(join(book, files(book)[0] as string), 'utf8'), 'FN:Keeper')
    events = (await d.json('GET', '/api/v1/events?limit=100')).body.data
    t.same(
      events.map((e: { title: string }) => e.title),
      ['Keeper'],
    )
  })
}
