import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import t from 'tap'
import { startDaemon } from './daemon.js'

/**
 * litmus (Debian's package), the WebDAV compliance suites, against the calendar home of a daemon:
 * litmus makes a `litmus/` collection there (MKCOL → a calendar) and works inside it.
 *
 * What applies to a CalDAV/CardDAV server whose objects are records, and must pass:
 *   basic   init, begin, options, put_no_parent, delete_null, mkcol_no_parent, mkcol_with_body, finish
 *   props   propfind_invalid, propfind_invalid2, propfind_d0, propextended, propwformed, propcleanup
 *   http    expect100
 *   locks   options (Hearth does not claim class 2: litmus skips the lock tests itself)
 * What does not, and fails by design (see README.md, "litmus"):
 *   put_get, put_get_utf8_segment, propinit, copy_init, move: PUT of arbitrary bytes into a calendar
 *     (a calendar takes iCalendar objects only: RFC 4791 5.3.2, valid-calendar-data) → 400
 *   mkcol, delete_fragment, copy_coll, copy_shallow, move_coll: collections inside a calendar
 *     (RFC 4791 5.3.1 forbids calendars in calendars; Hearth has no plain collections) → 403
 *   propmanyns (PROPPATCH): Hearth keeps no dead properties → 403 per property
 *   copymove: COPY and MOVE are not offered (objects are records; clients PUT and DELETE)
 */
const BIN = '/usr/libexec/litmus'
const HTDOCS = '/usr/share/litmus/htdocs'
const skip = existsSync(`${BIN}/basic`) ? false : 'litmus is not installed (apt install litmus; .ci/run installs it)'

const MUST_PASS: Record<string, string[]> = {
  basic: ['init', 'begin', 'options', 'put_no_parent', 'delete_null', 'mkcol_no_parent', 'mkcol_with_body', 'finish'],
  props: ['init', 'begin', 'propfind_invalid', 'propfind_invalid2', 'propfind_d0', 'propextended', 'propwformed', 'propcleanup', 'finish'],
  http: ['init', 'begin', 'expect100', 'finish'],
  locks: ['init', 'begin', 'options'],
}

t.test('litmus: the WebDAV basics that apply', { skip }, async (t) => {
  const d = await startDaemon(t)
  for (const [suite, names] of Object.entries(MUST_PASS)) {
    const r = spawnSync(`${BIN}/${suite}`, ['--htdocs', HTDOCS, `${d.base}/dav/calendars/`, d.email, d.key], {
      encoding: 'utf8',
      cwd: d.dir,
      timeout: 60_000,
    })
    // Lines read " 3. options............... pass" (a warning puts the verdict on the next line).
    const verdicts = new Map<string, string>()
    let last = ''
    for (const line of r.stdout.split('\n')) {
      // litmus prints the name twice on a line ("0. init....  0. init.... pass"): the last one counts.
      const named = [...line.matchAll(/\d+\.\s+([a-z0-9_]+)\.{2,}\s*/g)].pop()
      if (named) named[2] = line.slice((named.index ?? 0) + named[0].length)
      if (named) last = named[1] as string
      const verdict = named ? /^(pass|FAIL|SKIPPED)/.exec(named[2] as string) : /^\s*\.+\s*(pass|FAIL|SKIPPED)/.exec(line)
      if (last && verdict && !verdicts.has(last)) verdicts.set(last, verdict[1] as string)
    }
    for (const name of names) t.equal(verdicts.get(name), 'pass', `${suite}: ${name}`)
    t.comment(`${suite}: ${[...verdicts].map(([n, v]) => `${n}=${v}`).join(' ')}`)
  }
})
