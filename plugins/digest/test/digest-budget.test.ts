import { zipSync } from 'fflate'
import t from 'tap'
import { call, startDaemon, tempDir } from '../../../test/cli-process.js'
import { watchDaemon } from '../../../test/daemon-watch.js'

/**
 * A digest over many large records, against a real daemon process: events tomorrow with long
 * titles and 90 KB descriptions (each with a reminder), notes of 1 MB and contacts with long notes,
 * all changed today. The digest must stay within its byte budget (256 KiB, the webhook body's) with
 * every section represented and each keeping its first entries, while the daemon reads only what
 * the entries need: its memory stays within the bound docs/security.md gives and /health keeps
 * answering. The old composer read every section whole (pages of 200 full records: 200 MB of
 * notes at once) and answered over a megabyte.
 */
const EVENTS = 600
const NOTES = 120
const CONTACTS = 300
const DIGEST_LIMIT = 256 * 1024
/**
 * How much the daemon's RSS may grow over its resting size while composing: SQLite's 32 MB page cache,
 * the 32 MB record cache, and the texts read and dropped (a note of 1 MB is read whole for its title)
 * before the collector runs.
 */
const RSS_GROWTH_BOUND = 256 * 1024 * 1024

const filler = (i: number, size: number) => `record ${i} ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(size / 27))}`.slice(0, size)
const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')

async function upload(base: string, token: string, resource: string, name: string, body: Uint8Array | string): Promise<number> {
  const form = new FormData()
  form.append('file', new Blob([body]), name)
  const res = await fetch(`${base}/${resource}/import`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })
  const json = (await res.json()) as { data?: { imported: number } }
  return json.data?.imported ?? -1
}

t.test('a digest over many large records is composed within its budget, reading only what it needs', async (t) => {
  const dataDir = tempDir(t, 'hearth-digest-budget-')
  const env = { HEARTH_TIER: 'pro' }
  const first = await startDaemon(t, dataDir, env)
  const setup = await call(first.base, 'POST', '/auth/setup', undefined, { email: 'o@example.test', password: 'long enough pw' })
  t.equal(setup.status, 201, 'the owner is set up', { bail: true })
  let token = (setup.json.data as { accessToken: string }).accessToken

  // Events starting over the next 20 hours, in order, each with a reminder 10 minutes before.
  const soon = Date.now() + 3_600_000
  const vevents = Array.from({ length: EVENTS }, (_, i) => {
    const start = soon + i * 100_000
    return [
      'BEGIN:VEVENT',
      `UID:digest-${i}`,
      `DTSTART:${stamp(start)}`,
      `DTEND:${stamp(start + 1_800_000)}`,
      `SUMMARY:${String(i).padStart(4, '0')} ${'t'.repeat(400)}`,
      `LOCATION:${'l'.repeat(900)}`,
      `DESCRIPTION:${filler(i, 90_000)}`,
      'BEGIN:VALARM',
      'ACTION:DISPLAY',
      'TRIGGER:-PT10M',
      'END:VALARM',
      'END:VEVENT',
    ].join('\r\n')
  })
  const ics = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${vevents.join('\r\n')}\r\nEND:VCALENDAR\r\n`
  t.equal(await upload(first.base, token, 'events', 'events.ics', ics), EVENTS, 'the events are imported')
  const notes = zipSync(
    Object.fromEntries(Array.from({ length: NOTES }, (_, i) => [`note ${i}.md`, new TextEncoder().encode(filler(i, 999_000))])),
  )
  t.equal(await upload(first.base, token, 'notes', 'notes.zip', notes), NOTES, 'the notes are imported')
  const cards = Array.from(
    { length: CONTACTS },
    (_, i) => `BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Person ${i} ${'n'.repeat(250)}\r\nNOTE:${filler(i, 50_000)}\r\nEND:VCARD\r\n`,
  ).join('')
  t.equal(await upload(first.base, token, 'contacts', 'contacts.vcf', cards), CONTACTS, 'the contacts are imported')
  await first.stop()

  // A fresh process: the imports' own memory is not mistaken for room the digest could use.
  const daemon = await startDaemon(t, dataDir, env)
  const login = await call(daemon.base, 'POST', '/auth/login', undefined, { email: 'o@example.test', password: 'long enough pw' })
  token = (login.json.data as { accessToken: string }).accessToken

  const watch = watchDaemon(daemon.pid, `${daemon.base}/health`)
  const started = performance.now()
  const res = await fetch(`${daemon.base}/digest?period=day`, { headers: { authorization: `Bearer ${token}` } })
  const text = await res.text()
  const took = performance.now() - started
  const seen = await watch.stop()
  t.comment(
    `digest: status ${res.status}, ${Buffer.byteLength(text)} bytes in ${Math.round(took)} ms, peak RSS +${Math.round(seen.peakGrowth / 1048576)} MB, slowest /health ${Math.round(seen.slowestHealth)} ms (${seen.healthFailures} failed)`,
  )
  t.equal(res.status, 200)
  t.ok(Buffer.byteLength(text) <= DIGEST_LIMIT, `the digest is ${Buffer.byteLength(text)} bytes, within ${DIGEST_LIMIT}`)
  t.ok(seen.peakGrowth < RSS_GROWTH_BOUND, `peak RSS growth ${Math.round(seen.peakGrowth / 1048576)} MB is under the bound`)
  t.equal(seen.healthFailures, 0, '/health answered throughout')

  const digest = (JSON.parse(text) as { data: Record<string, Array<Record<string, string>>> & { truncated: boolean; markdown: string } })
    .data
  t.equal(digest.truncated, true, 'the digest says it was cut')
  t.match(digest.markdown, /Some sections were cut short/)
  for (const section of ['events', 'reminders', 'notes_changed', 'contacts_changed']) {
    t.ok((digest[section]?.length ?? 0) > 0, `${section}: ${digest[section]?.length} entries, each section has its share`)
  }
  t.same(
    digest.events.map((e) => e.title?.slice(0, 4)),
    digest.events.map((_, i) => String(i).padStart(4, '0')),
    'the events kept are the first ones, whole and in order',
  )
  t.equal(digest.events[0]?.title?.length, 405, 'titles are not shortened')
})
