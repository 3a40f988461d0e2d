import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { hasTool, householdMember, noPythonModule, PYTHON, startDaemon } from './daemon.js'

/**
 * Shared collections with real clients signed in as the sharee, against a daemon process: Debian's
 * python3-caldav (discovery finds the shared calendar, a read share refuses a save, a write share
 * takes it and the owner sees it, unsharing removes it from the next discovery) and vdirsyncer
 * (a shared calendar and a shared address book synced to folders, a write going back as the
 * owner's, a read share's refusal, the collection gone after unsharing without a crash).
 */
const noCaldav = noPythonModule('caldav')
const noVdirsyncer = hasTool('vdirsyncer') ? false : 'vdirsyncer is not installed (apt install vdirsyncer; .ci/run installs it)'

/** One step of python3-caldav as the sharee: `discover`, `save <calendar url> <uid> <summary>`, or `events <calendar url>`. */
const SCRIPT = String.raw`
import caldav, json, sys
url, user, password, step = sys.argv[1:5]
client = caldav.DAVClient(url + '/dav/', username=user, password=password)
principal = client.principal()
def ics(uid, summary):
    return ('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//python-caldav test//EN\r\nBEGIN:VEVENT\r\n'
            'UID:%s\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261210T160000Z\r\nDTEND:20261210T170000Z\r\nSUMMARY:%s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n'
            % (uid, summary))
try:
    if step == 'discover':
        out = {str(c.url): c.get_display_name() for c in principal.calendars()}
    elif step == 'save':
        cal = client.calendar(url=sys.argv[5])
        cal.save_event(ics(sys.argv[6], sys.argv[7]))
        out = {'saved': True}
    else:
        cal = client.calendar(url=sys.argv[5])
        out = {'events': sorted(e.instance.vevent.summary.value for e in cal.events())}
except caldav.lib.error.DAVError as e:
    out = {'error': type(e).__name__, 'reason': str(e)[:300]}
print(json.dumps(out))
`

t.test(
  'python3-caldav as the sharee: discovery, a read share refusing, a write share writing the owner’s, unsharing',
  { skip: noCaldav },
  async (t) => {
    const d = await startDaemon(t)
    const bea = await householdMember(d, 'Bea')
    const caldav = (...args: string[]) => {
      const r = spawnSync(PYTHON, ['-c', SCRIPT, d.base, bea.email, bea.key, ...args], { encoding: 'utf8', timeout: 60_000 })
      t.equal(r.status, 0, r.stderr.slice(-3000))
      return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}')
    }
    const dinner = (
      await d.json('POST', '/api/v1/events', { title: 'Family dinner', start_at: '2026-12-01T18:00:00Z', calendar_name: 'family' })
    ).body.data
    const ownerId = dinner.owner_id as string
    const share = (await d.json('POST', '/api/v1/shares', { kind: 'calendar', name: 'family', with: bea.userId, access: 'read' })).body.data
    const url = `${d.base}/dav/calendars/shared-${ownerId}-family/`

    const found = caldav('discover')
    t.equal(found[url], 'family (Owner)', 'discovery finds the shared calendar, named for whose it is')
    t.same(
      Object.keys(found).sort(),
      [`${d.base}/dav/calendars/birthdays/`, `${d.base}/dav/calendars/default/`, url, `${d.base}/dav/calendars/tasks-default/`].sort(),
    )
    t.same(caldav('events', url).events, ['Family dinner'], 'its events are the owner’s')

    const refused = caldav('save', url, 'bea-dentist', 'Dentist')
    t.equal(refused.error, 'AuthorizationError', 'a read share refuses the save (403)')
    t.match(refused.reason, 'Forbidden')
    t.same(
      (await d.json('GET', '/api/v1/events?calendar_name=family')).body.data.map((e: { title: string }) => e.title),
      ['Family dinner'],
      'nothing stored',
    )

    await d.json('PATCH', `/api/v1/shares/${share.id}`, { access: 'write' })
    t.same(caldav('save', url, 'bea-dentist', 'Dentist'), { saved: true }, 'a write share takes it')
    const saved = (await d.json('GET', '/api/v1/events?calendar_name=family&search=Dentist')).body.data[0]
    t.match(saved, { title: 'Dentist', owner_id: ownerId, calendar_name: 'family' }, 'the owner sees it in their calendar, as theirs')
    t.same(caldav('events', url).events, ['Dentist', 'Family dinner'])

    await d.json('DELETE', `/api/v1/shares/${share.id}`)
    t.notOk(url in caldav('discover'), 'unshared: gone from the next discovery')
    t.equal(caldav('events', url).error, 'NotFoundError', 'and the calendar itself answers 404')
  },
)

t.test('vdirsyncer as the sharee: a shared calendar and address book, both ways, then unshared', { skip: noVdirsyncer }, async (t) => {
  const d = await startDaemon(t)
  const bea = await householdMember(d, 'Bea')
  const local = join(d.dir, 'local')
  const config = join(d.dir, 'vdirsyncer.conf')
  const storage = (type: string) => `type = "${type}"\nurl = "${d.base}/"\nusername = "${bea.email}"\npassword = "${bea.key}"`
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
${storage('carddav')}

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
${storage('caldav')}
item_types = ["VEVENT"]
`,
  )
  mkdirSync(join(local, 'contacts'), { recursive: true })
  mkdirSync(join(local, 'calendars'), { recursive: true })
  const run = (...args: string[]) =>
    spawnSync('vdirsyncer', ['-c', config, ...args], { input: 'y\n'.repeat(20), encoding: 'utf8', timeout: 60_000 })
  const ok = (...args: string[]) => {
    const r = run(...args)
    t.equal(r.status, 0, `vdirsyncer ${args.join(' ')}: ${r.stderr.slice(-2000)}`)
    return r
  }
  const files = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.')) : [])
  const texts = (dir: string) => files(dir).map((f) => readFileSync(join(dir, f), 'utf8'))

  const dinner = (
    await d.json('POST', '/api/v1/events', { title: 'Family dinner', start_at: '2026-12-01T18:00:00Z', calendar_name: 'family' })
  ).body.data
  const ownerId = dinner.owner_id as string
  await d.json('POST', '/api/v1/events', { title: 'Budget review', start_at: '2026-12-02T09:00:00Z', calendar_name: 'work' })
  await d.json('POST', '/api/v1/contacts', { display_name: 'Grandma', phones: [{ number: '+33 1 23 45 67 89' }] })
  const calendarShare = (await d.json('POST', '/api/v1/shares', { kind: 'calendar', name: 'family', with: bea.userId, access: 'write' }))
    .body.data
  await d.json('POST', '/api/v1/shares', { kind: 'addressbook', with: bea.userId, access: 'read' })
  const family = join(local, 'calendars', `shared-${ownerId}-family`)
  const book = join(local, 'contacts', `shared-${ownerId}-contacts`)

  ok('discover')
  ok('sync')
  t.same(
    texts(family).map((s) => /SUMMARY:(.*)\r?\n/.exec(s)?.[1]),
    ['Family dinner'],
    'the shared calendar reached its own folder, nothing of another calendar',
  )
  t.same(files(join(local, 'calendars', 'default')), [], 'the sharee’s own calendar stays theirs (empty)')
  t.match(texts(book).join(''), 'FN:Grandma', 'the shared address book reached its folder')
  t.same(files(join(local, 'contacts', 'contacts')), [], 'and the sharee’s own address book holds none of it')

  // A write share takes a new event, stored as the owner's.
  writeFileSync(
    join(family, 'swim.ics'),
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//local//EN\r\nBEGIN:VEVENT\r\nUID:bea-swim\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261205T100000Z\r\nDTEND:20261205T110000Z\r\nSUMMARY:Swimming\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n',
  )
  ok('sync')
  const swim = (await d.json('GET', '/api/v1/events?calendar_name=family&search=Swimming')).body.data[0]
  t.match(swim, { title: 'Swimming', owner_id: ownerId }, 'the owner sees the sharee’s event, as theirs')

  // A read share refuses a new card: vdirsyncer reports it, nothing is stored on the server.
  writeFileSync(join(book, 'kid.vcf'), 'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bea-kid\r\nFN:Kid Friend\r\nN:Friend;Kid;;;\r\nEND:VCARD\r\n')
  const refused = run('sync', 'contacts')
  t.not(refused.status, 0, 'the upload into a read share fails')
  t.match(refused.stderr, '403', 'with the server’s 403')
  t.notMatch(refused.stderr, 'Traceback', 'reported, not a crash')
  t.equal((await d.json('GET', '/api/v1/contacts?search=Kid')).body.data.length, 0, 'nothing stored')
  rmSync(join(book, 'kid.vcf'))

  // The owner's change reaches the folder; then unsharing takes the calendar away.
  await d.json('PATCH', `/api/v1/events/${dinner.id}`, { location: 'Grandma’s' })
  ok('sync')
  t.match(texts(family).join(''), 'LOCATION:Grandma’s', 'the owner’s change reached the sharee')

  await d.json('DELETE', `/api/v1/shares/${calendarShare.id}`)
  const gone = run('sync', 'calendars')
  t.notMatch(gone.stderr, 'Traceback', 'the next sync of the unshared calendar reports it, without a crash')
  // vdirsyncer's word for a collection gone from the server: one error line naming it (exit 1), the others synced.
  t.match(gone.stderr, `calendars/shared-${ownerId}-family: Not Found`)
  t.match(gone.stdout + gone.stderr, 'Syncing calendars/default', 'the other calendars still sync')
  // Discovering again (what `vdirsyncer discover` is for) drops it; syncs are clean from then on.
  const listed = ok('discover', 'calendars')
  const saved = /Saved for calendars: collections = (.*)/.exec(listed.stdout + listed.stderr)?.[1]
  t.same(JSON.parse(saved ?? 'null'), ['birthdays', 'default', 'tasks-default'], 'discovery no longer finds it on the server')
  ok('sync')
})
