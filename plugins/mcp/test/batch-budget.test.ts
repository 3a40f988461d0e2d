import { readFileSync } from 'node:fs'
import t from 'tap'
import { call, startDaemon, tempDir } from '../../../test/cli-process.js'
import { RESULT_LIMIT } from '../result-size.js'

/**
 * A batch of list calls over large notes, against a real daemon process: sixty notes of about
 * 1 MB (the notes' content limit, inside the default 1 MiB body limit), then one POST of sixteen
 * `search` calls at limit 200, format full. The old daemon answered 120 MB for one such call and
 * grew to gigabytes for a batch of 32 while /health went silent. Now a batch holds at most 16
 * calls, one result at most 1 MiB (saying where the next page starts), the whole answer at most
 * the answer budget, and the daemon keeps answering /health throughout with its memory bounded.
 */
const NOTES = 60
const CONTENT = 'lorem ipsum dolor sit amet '.repeat(Math.floor(999_000 / 27))
/** What the daemon may hold at its peak during the attack (it sits near 150 MiB with these notes). */
const RSS_BOUND_MIB = 512
const ANSWER_BUDGET = 16 * 1024 * 1024

const rssMib = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

const searchCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'search', arguments: { query: 'lorem', limit: 200, format: 'full' } },
})

t.test('a batch of searches over 1 MB notes is bounded and the daemon keeps answering', async (t) => {
  const daemon = await startDaemon(t, tempDir(t, 'hearth-mcp-budget-'))
  const setup = await call(daemon.base, 'POST', '/auth/setup', undefined, { email: 'o@example.test', password: 'long enough pw' })
  const token = (setup.json.data as { accessToken: string }).accessToken
  for (let i = 0; i < NOTES; i++) {
    const created = await call(daemon.base, 'POST', '/notes', token, { title: `big ${i}`, content: CONTENT })
    t.equal(created.status, 201, `note ${i} created`, { bail: true })
  }
  const mcp = (batch: unknown) =>
    fetch(`${daemon.base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify(batch),
    })

  const tooMany = await mcp(Array.from({ length: 32 }, (_, i) => searchCall(i + 1)))
  t.equal(tooMany.status, 400, 'a batch of 32 is refused')
  t.match(await tooMany.json(), { jsonrpc: '2.0', id: null, error: { code: -32600, message: /1 to 16/ } })

  // /health every 20 ms and the daemon's RSS while the batch runs.
  let running = true
  const health: number[] = []
  let failed = 0
  let peak = 0
  const probe = (async () => {
    while (running) {
      const started = performance.now()
      try {
        const res = await fetch(`${daemon.base}/health`, { signal: AbortSignal.timeout(5000) })
        await res.arrayBuffer()
        health.push(performance.now() - started)
      } catch {
        failed++
      }
      peak = Math.max(peak, rssMib(daemon.pid))
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  const started = performance.now()
  const res = await mcp(Array.from({ length: 16 }, (_, i) => searchCall(i + 1)))
  const text = await res.text()
  const took = performance.now() - started
  running = false
  await probe

  t.equal(res.status, 200)
  t.ok(Buffer.byteLength(text) <= ANSWER_BUDGET, `the answer is ${Buffer.byteLength(text)} bytes, within the answer budget`)
  const answers = JSON.parse(text) as Array<{
    id: number
    result?: { structuredContent: { notes: { items: unknown[]; total: number; next_offset?: number } } }
    error?: { code: number }
  }>
  t.equal(answers.length, 16, 'one answer per call')
  for (const a of answers) {
    if (a.error) {
      t.equal(a.error.code, -32000, `call ${a.id}: not run, the answer budget was spent`)
      continue
    }
    const size = Buffer.byteLength(JSON.stringify(a.result))
    t.ok(size <= RESULT_LIMIT, `call ${a.id}: its result is ${size} bytes, within ${RESULT_LIMIT}`)
    const notes = a.result?.structuredContent.notes
    t.equal(notes?.total, NOTES, `call ${a.id}: the true total`)
    t.equal(notes?.next_offset, notes?.items.length, `call ${a.id}: where the next page starts`)
  }
  t.equal(daemon.child.exitCode, null, 'the daemon is still running')
  t.equal(failed, 0, '/health answered every probe')
  t.ok(health.length > 0, 'health was probed during the batch')
  t.ok(peak < RSS_BOUND_MIB, `RSS peaked at ${peak.toFixed(0)} MiB, under ${RSS_BOUND_MIB} MiB`)
  const sorted = [...health].sort((a, b) => a - b)
  t.comment(
    `batch of 16: ${took.toFixed(0)} ms, ${Buffer.byteLength(text)} bytes; /health over ${health.length} probes: median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms, worst ${sorted.at(-1)?.toFixed(1)} ms; RSS peak ${peak.toFixed(0)} MiB`,
  )
})
