import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { call, startDaemon, tempDir } from '../cli-process.js'
import { loopDelay, resetLoopDelay } from '../loop-delay.js'

/**
 * How long the large answers hold a daemon's event loop (which DNS shares), measured inside a real
 * daemon process with perf_hooks' monitorEventLoopDelay: a list page near the answer budget, an MCP
 * search of full notes, a DAV PROPFIND over thousands of contacts and an export. The figures are
 * printed, not asserted (a duration is the bench's to judge, on a machine shared with others); the
 * test asserts that each answer is whole.
 */
const PRELOAD = fileURLToPath(new URL('../loop-delay.js', import.meta.url))
const NOTE = 'lorem ipsum dolor sit amet '.repeat(Math.floor(400_000 / 27))

t.test('the event loop while large answers are written', async (t) => {
  const dir = tempDir(t, 'hearth-loop-')
  const file = join(dir, 'loop.json')
  const daemon = await startDaemon(t, join(dir, 'data'), { NODE_OPTIONS: `--import=${PRELOAD}`, HEARTH_TEST_LOOP_FILE: file })
  const setup = await call(daemon.base, 'POST', '/auth/setup', undefined, { email: 'o@example.test', password: 'long enough pw' })
  const token = (setup.json.data as { accessToken: string }).accessToken
  for (let i = 0; i < 40; i++) t.equal((await call(daemon.base, 'POST', '/notes', token, { title: `n${i}`, content: NOTE })).status, 201)
  const cards = Array.from({ length: 3000 }, (_, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Person ${i}\r\nEND:VCARD\r\n`).join('')
  const form = new FormData()
  form.append('file', new Blob([cards]), 'c.vcf')
  t.equal(
    (await fetch(`${daemon.base}/contacts/import`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })).status,
    200,
  )
  const key = (await call(daemon.base, 'POST', '/admin/api-keys', token, { scope: 'dav', label: 'dav' })).json.data as { key: string }
  const basic = `Basic ${Buffer.from(`o@example.test:${key.key}`).toString('base64')}`
  const root = daemon.base.replace(/\/api\/v1$/, '')

  const measure = async (what: string, send: () => Promise<Response>, expected: number) => {
    await new Promise((r) => setTimeout(r, 200))
    await resetLoopDelay(file)
    const res = await send()
    const bytes = (await res.arrayBuffer()).byteLength
    await new Promise((r) => setTimeout(r, 150))
    const { maxMs, p99Ms } = loopDelay(file)
    t.equal(res.status, expected, `${what}: ${res.status}`)
    t.comment(`${what}: ${bytes} bytes; the loop was held at most ${Math.round(maxMs)} ms (p99 ${Math.round(p99Ms)} ms)`)
  }
  const auth = { authorization: `Bearer ${token}` }
  await measure('GET /notes?limit=200 (40 notes of 400 KB)', () => fetch(`${daemon.base}/notes?limit=200`, { headers: auth }), 200)
  await measure(
    'MCP search, limit 200, format full',
    () =>
      fetch(`${daemon.base}/mcp`, {
        method: 'POST',
        headers: {
          ...auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-03-26',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'search', arguments: { query: 'lorem', limit: 200, format: 'full' } },
        }),
      }),
    200,
  )
  await measure(
    'DAV PROPFIND Depth 1 over 3,000 contacts with their address data',
    () =>
      fetch(`${root}/dav/addressbooks/contacts/`, {
        method: 'PROPFIND',
        headers: { authorization: basic, depth: '1', 'content-type': 'application/xml' },
        body: '<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><d:prop><d:getetag/><card:address-data/></d:prop></d:propfind>',
      }),
    207,
  )
  await measure('GET /notes/export (40 notes of 400 KB)', () => fetch(`${daemon.base}/notes/export`, { headers: auth }), 200)
  await measure('GET /contacts/export (3,000 contacts)', () => fetch(`${daemon.base}/contacts/export`, { headers: auth }), 200)
})
