import t from 'tap'
import { call, startDaemon, tempDir } from '../cli-process.js'
import { watchDaemon } from '../daemon-watch.js'

/**
 * Large list pages, against a real daemon process: notes of 400 KB, then several clients at once
 * each asking for every note in one page (about 16 MB each, the answer budget). Written whole, one
 * such page held the event loop (which DNS shares) for most of a second, so the pages asked for
 * together held it for seconds on end and /health went unanswered; streamed, a page is written a
 * note at a time as its client reads, the loop given back between pieces. The test asserts that
 * every page arrives whole, that /health answers every probe meanwhile and that the daemon's memory
 * stays within its bound; the latencies are printed, not asserted (a duration is the bench's to judge).
 */
const NOTES = 40
const CLIENTS = 12
const NOTE = 'lorem ipsum dolor sit amet '.repeat(Math.floor(400_000 / 27))
/** The pages in flight hold their notes while they are written: about 16 MB each. */
const RSS_GROWTH_BOUND = 512 * 1024 * 1024

t.test(`${CLIENTS} clients reading a 16 MB page each at once`, async (t) => {
  const dir = tempDir(t, 'hearth-list-stream-')
  const daemon = await startDaemon(t, dir)
  const setup = await call(daemon.base, 'POST', '/auth/setup', undefined, { email: 'o@example.test', password: 'long enough pw' })
  const token = (setup.json.data as { accessToken: string }).accessToken
  for (let i = 0; i < NOTES; i++) {
    t.equal((await call(daemon.base, 'POST', '/notes', token, { title: `n${i}`, content: NOTE })).status, 201, `note ${i}`, { bail: true })
  }
  const page = async () => {
    const res = await fetch(`${daemon.base}/notes?limit=200`, { headers: { authorization: `Bearer ${token}` } })
    const text = await res.text()
    return { status: res.status, chunked: res.headers.get('transfer-encoding') === 'chunked', text }
  }
  // Once alone: the page is whole and streamed.
  const alone = await page()
  t.equal(alone.status, 200)
  t.ok(alone.chunked, 'a page this large is streamed')
  const first = JSON.parse(alone.text) as { data: Array<{ content: string }>; meta: { total: number } }
  t.equal(first.meta.total, NOTES)
  t.equal(first.data.length, NOTES, 'every note fits the answer budget')
  t.ok(
    first.data.every((n) => n.content === NOTE),
    'each with its whole content',
  )

  const watch = watchDaemon(daemon.pid, `${daemon.base}/health`, 'VmHWM')
  const started = performance.now()
  const pages = await Promise.all(Array.from({ length: CLIENTS }, page))
  const took = performance.now() - started
  const seen = await watch.stop()
  t.comment(
    `${CLIENTS} pages of ${alone.text.length} bytes at once: ${Math.round(took)} ms, peak RSS +${Math.round(seen.peakGrowth / 1048576)} MB, slowest /health ${Math.round(seen.slowestHealth)} ms (${seen.healthFailures} failed)`,
  )
  t.ok(
    pages.every((p) => p.status === 200 && p.text === alone.text),
    'every page arrives whole, the same bytes',
  )
  t.equal(seen.healthFailures, 0, '/health answered every probe while the pages were written')
  t.ok(seen.peakGrowth < RSS_GROWTH_BOUND, `peak RSS growth ${Math.round(seen.peakGrowth / 1048576)} MB is under the bound`)
})
