import { spawnSync } from 'node:child_process'
import t from 'tap'
import { householdMember, noPythonModule, PYTHON, startDaemon } from './daemon.js'

/**
 * Invitations with a real client signed in as the attendee, against a daemon process: Debian's
 * python3-caldav finds the Invitations calendar by discovery, reads the organizer's event with its
 * own PARTSTAT NEEDS-ACTION, accepts it by changing PARTSTAT and saving (the organizer reads the
 * answer through the JSON API), and has a changed SUMMARY refused.
 */
const noCaldav = noPythonModule('caldav')

/**
 * One step of python3-caldav as the attendee: `discover`, `read <calendar url>` (each event's
 * SUMMARY and the attendee's PARTSTAT), `answer <calendar url> <PARTSTAT>`, `rename <calendar url> <summary>`.
 */
const SCRIPT = String.raw`
import caldav, json, sys
url, user, password, step = sys.argv[1:5]
client = caldav.DAVClient(url + '/dav/', username=user, password=password)
principal = client.principal()
def mine(event):
    return [a for a in event.instance.vevent.contents.get('attendee', []) if a.value.lower() == 'mailto:' + user.lower()]
try:
    if step == 'discover':
        out = {str(c.url): c.get_display_name() for c in principal.calendars()}
    else:
        cal = client.calendar(url=sys.argv[5])
        events = cal.events()
        if step == 'read':
            out = {'events': [[e.instance.vevent.summary.value, mine(e)[0].params.get('PARTSTAT', [''])[0]] for e in events]}
        else:
            event = events[0]
            if step == 'answer':
                mine(event)[0].params['PARTSTAT'] = [sys.argv[6]]
            else:
                event.instance.vevent.summary.value = sys.argv[6]
            event.save()
            out = {'saved': True}
except caldav.lib.error.DAVError as e:
    out = {'error': type(e).__name__, 'reason': str(e)[:300]}
print(json.dumps(out))
`

t.test('python3-caldav as the attendee: discovery, NEEDS-ACTION, accepting, a refused SUMMARY', { skip: noCaldav }, async (t) => {
  const d = await startDaemon(t)
  const bea = await householdMember(d, 'Bea')
  const caldav = (...args: string[]) => {
    const r = spawnSync(PYTHON, ['-c', SCRIPT, d.base, bea.email, bea.key, ...args], { encoding: 'utf8', timeout: 60_000 })
    t.equal(r.status, 0, r.stderr.slice(-3000))
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}')
  }
  const dinner = (
    await d.json('POST', '/api/v1/events', {
      title: 'Family dinner',
      start_at: '2026-12-01T18:00:00Z',
      end_at: '2026-12-01T20:00:00Z',
      calendar_name: 'family',
      attendees: [{ email: bea.email, name: 'Bea' }, { email: 'friend@elsewhere.test' }],
    })
  ).body.data
  const url = `${d.base}/dav/calendars/invitations/`

  const found = caldav('discover')
  t.equal(found[url], 'Invitations', 'discovery finds the Invitations calendar')
  t.same(caldav('read', url).events, [['Family dinner', 'NEEDS-ACTION']], 'the organizer’s event, waiting for an answer')

  t.same(caldav('answer', url, 'ACCEPTED'), { saved: true }, 'accepting saves')
  const seen = (await d.json('GET', `/api/v1/events/${dinner.id}`)).body.data
  t.match(seen.attendees, [
    { email: bea.email, status: 'accepted' },
    { email: 'friend@elsewhere.test', status: 'pending' },
  ])
  t.same(caldav('read', url).events, [['Family dinner', 'ACCEPTED']], 'and the client reads it back')

  const refused = caldav('rename', url, 'Bea’s dinner')
  t.equal(refused.error, 'AuthorizationError', 'a changed SUMMARY is refused (403)')
  t.equal((await d.json('GET', `/api/v1/events/${dinner.id}`)).body.data.title, 'Family dinner', 'nothing stored')
})
