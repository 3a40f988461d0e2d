import { randomBytes } from 'node:crypto'
import { unzipSync, zipSync } from 'fflate'
import t from 'tap'
import { call, startDaemon, tempDir } from '../../../test/cli-process.js'
import { watchDaemon } from '../../../test/daemon-watch.js'

/**
 * Exports of thousands of ~50 KB records, against a real daemon process: every record must come
 * out, while the daemon's memory stays within the bound docs/security.md gives (an export is
 * streamed, a batch of records at a time) and /health, which shares the event loop with DNS,
 * keeps answering. The daemon is restarted after the records are stored, so the import's own
 * memory is not mistaken for room the export could use.
 */
const RECORDS = 2000
/** Characters of text each record carries (a long note, contact note or event description). */
const TEXT = 50 * 1024
/** How much the daemon's peak RSS may grow over its resting size during one export: SQLite's page cache (32 MB) fills as the rows are read, a batch of records, and what the collector has not reclaimed yet. */
const RSS_GROWTH_BOUND = 128 * 1024 * 1024
/** ~50 KB of text, its own for each record (a random kilobyte repeated: it compresses, as prose does), on one line: the vCard and iCalendar files carry it as is. */
const text = (i: number) => `record ${i} ${randomBytes(512).toString('hex')} `.repeat(Math.ceil(TEXT / 1040)).slice(0, TEXT)

async function upload(base: string, token: string, resource: string, name: string, body: Uint8Array | string) {
  const form = new FormData()
  form.append('file', new Blob([body]), name)
  const res = await fetch(`${base}/${resource}/import`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })
  const json = (await res.json()) as { data: { imported: number } }
  return json.data?.imported ?? -1
}

const vcards = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k
    return `BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Person ${i}\r\nNOTE:${text(i)}\r\nEND:VCARD\r\n`
  }).join('')

const vevents = (from: number, n: number) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${Array.from({ length: n }, (_, k) => {
    const i = from + k
    const day = String(1 + (i % 28)).padStart(2, '0')
    return `BEGIN:VEVENT\r\nUID:event-${i}\r\nDTSTART;TZID=Europe/Paris:202603${day}T090000\r\nDTEND;TZID=Europe/Paris:202603${day}T100000\r\nSUMMARY:Event ${i}\r\nDESCRIPTION:${text(i)}\r\nEND:VEVENT\r\n`
  }).join('')}END:VCALENDAR\r\n`

interface Outcome {
  status: number
  body: Buffer
  peakGrowth: number
  slowestHealth: number
  healthFailures: number
}

/** Reads one export while /health is probed and the daemon's memory sampled. */
async function exported(base: string, pid: number, token: string, path: string): Promise<Outcome> {
  const watch = watchDaemon(pid, `${base}/health`)
  let status = -1
  const parts: Buffer[] = []
  try {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })
    status = res.status
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(chunk))
  } catch {
    status = -1
  }
  return { status, body: Buffer.concat(parts), ...(await watch.stop()) }
}

t.test(`exports of ${RECORDS} records of 50 KB stream within a memory bound`, async (t) => {
  const dataDir = tempDir(t, 'hearth-export-')
  const first = await startDaemon(t, dataDir)
  const setup = await call(first.base, 'POST', '/auth/setup', undefined, { email: 'o@example.test', password: 'long enough pw' })
  t.equal(setup.status, 201, 'the owner is set up', { bail: true })
  let token = (setup.json.data as { accessToken: string }).accessToken

  const notes = zipSync(Object.fromEntries(Array.from({ length: RECORDS }, (_, i) => [`note ${i}.md`, new TextEncoder().encode(text(i))])))
  t.equal(await upload(first.base, token, 'notes', 'notes.zip', notes), RECORDS, 'the notes are imported')
  let contacts = 0
  let events = 0
  // Four files of each: one of all would pass the 64 MiB upload limit.
  for (let from = 0; from < RECORDS; from += RECORDS / 4) {
    contacts += await upload(first.base, token, 'contacts', 'contacts.vcf', vcards(from, RECORDS / 4))
    events += await upload(first.base, token, 'events', 'events.ics', vevents(from, RECORDS / 4))
  }
  t.equal(contacts, RECORDS, 'the contacts are imported')
  t.equal(events, RECORDS, 'the events are imported')
  await first.stop()

  const daemon = await startDaemon(t, dataDir)
  const login = await call(daemon.base, 'POST', '/auth/login', undefined, { email: 'o@example.test', password: 'long enough pw' })
  token = (login.json.data as { accessToken: string }).accessToken

  const check = (what: string, o: Outcome) => {
    t.comment(
      `${what}: status ${o.status}, ${o.body.length} bytes, peak RSS +${Math.round(o.peakGrowth / 1048576)} MB, slowest /health ${Math.round(o.slowestHealth)} ms (${o.healthFailures} failed)`,
    )
    t.equal(o.status, 200, `${what} answered`)
    t.ok(o.peakGrowth < RSS_GROWTH_BOUND, `${what}: peak RSS growth ${Math.round(o.peakGrowth / 1048576)} MB is under the bound`)
    t.equal(o.healthFailures, 0, `${what}: /health answered throughout`)
  }

  const zip = await exported(daemon.base, daemon.pid, token, '/notes/export')
  check('notes (zip)', zip)
  const members = Object.values(unzipSync(new Uint8Array(zip.body)))
  t.equal(members.length, RECORDS, 'every note is in the zip')
  t.ok(
    members.every((m) => m.length > TEXT),
    'each with its whole text',
  )

  const vcf = await exported(daemon.base, daemon.pid, token, '/contacts/export')
  check('contacts (vCard)', vcf)
  t.equal(vcf.body.toString('utf8').split('BEGIN:VCARD').length - 1, RECORDS, 'every contact is in the file')

  const ics = await exported(daemon.base, daemon.pid, token, '/events/export')
  check('events (iCalendar)', ics)
  const calendar = ics.body.toString('utf8')
  t.equal(calendar.split('BEGIN:VEVENT').length - 1, RECORDS, 'every event is in the file')
  t.equal(calendar.split('BEGIN:VTIMEZONE').length - 1, 1, 'one VTIMEZONE, for the zone the events use')
  t.ok(calendar.indexOf('BEGIN:VTIMEZONE') < calendar.indexOf('BEGIN:VEVENT'), 'written before the events')
  t.ok(calendar.endsWith('END:VCALENDAR\r\n'), 'the calendar is whole')
})
