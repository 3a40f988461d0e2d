/**
 * The attacks of the budget tests, one after another against one daemon process (the bundle `npm start`
 * runs, its DNS server on a free port), while `/health` and a DNS query are each asked again ~20 ms after
 * their last answer (probes.ts): per attack, the slowest and the 99th percentile of each, the daemon's
 * own event-loop delay (perf_hooks inside the process, test/loop-delay.ts) and its RSS peak, beside the
 * machine's load average. The aim is under 100 ms for both probes on a calm machine.
 *
 * HEARTH_BENCH_CPU_PROF_DIR=<dir> has the daemon write a CPU profile there when it stops.
 *
 * Run alone: node dist/scripts/bench/attacks.js
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { zipSync } from 'fflate'
import { loopDelay, resetLoopDelay } from '../../test/loop-delay.js'
import { freePort, json, ownerWithKey, ROOT, startDaemon } from './harness.js'
import { dnsClient, loadAverage, probeWhile, rssMb } from './probes.js'

const filler = (size: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(size / 27)).slice(0, size)
const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')

interface Answered {
  status: number
  bytes: number
}

/** Reads an answer to its end without keeping it. */
async function drain(res: Response): Promise<Answered> {
  let bytes = 0
  const reader = res.body?.getReader()
  for (;;) {
    const chunk = await reader?.read()
    if (!chunk || chunk.done) break
    bytes += chunk.value.byteLength
  }
  return { status: res.status, bytes }
}

export async function benchAttacks(): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-attacks-'))
  const loopFile = join(dir, 'loop.json')
  const dnsPort = await freePort()
  const profile = process.env.HEARTH_BENCH_CPU_PROF_DIR
  const daemon = await startDaemon(
    {
      HEARTH_DATA_DIR: join(dir, 'data'),
      HEARTH_DNS_PORT: String(dnsPort),
      HEARTH_DNS_HOST: '127.0.0.1',
      HEARTH_CADDY_ADMIN: 'http://127.0.0.1:1',
      HEARTH_PLUGINS_DIR: '',
      HEARTH_TIER: 'pro',
      HEARTH_TEST_LOOP_FILE: loopFile,
    },
    ['--import', join(ROOT, 'dist/test/loop-delay.js'), ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])],
  )
  const dns = dnsClient(dnsPort, 'probe.bench.test')
  try {
    const { token } = await ownerWithKey(daemon.url)
    const api = `${daemon.url}/api/v1`
    const bearer = { authorization: `Bearer ${token}` }
    const post = (path: string, body: unknown) =>
      fetch(`${api}${path}`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const upload = async (resource: string, name: string, body: Uint8Array | string) => {
      const form = new FormData()
      form.append('file', new Blob([body]), name)
      return json<{ imported: number }>(await fetch(`${api}/${resource}/import`, { method: 'POST', headers: bearer, body: form }))
    }

    const zone = await json<{ id: string }>(await post('/dns/zones', { zone: 'bench.test', mode: 'authoritative' }))
    await json(await post(`/dns/zones/${zone.id}/records`, { type: 'A', name: 'probe', content: '192.0.2.1', ttl: 300 }))
    for (let i = 0; (await dns.ask())?.answers !== 1; i++) {
      if (i > 50) throw new Error('the DNS server does not answer probe.bench.test')
      await new Promise((r) => setTimeout(r, 100))
    }

    const davKey = (await json<{ key: string }>(await post('/admin/api-keys', { scope: 'dav', label: 'bench' }))).key
    const dav = (method: string, path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${daemon.url}/dav/${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`bench@example.test:${davKey}`).toString('base64')}`,
          'content-type': 'application/xml; charset=utf-8',
          ...headers,
        },
        body,
      })
    const bigCard = `BEGIN:VCARD\r\nVERSION:3.0\r\nUID:big-card\r\nFN:Big Card\r\nN:Card;Big;;;\r\nPHOTO;ENCODING=b;TYPE=JPEG:${'x'.repeat(1_000_000)}\r\nEND:VCARD\r\n`
    await drain(await dav('PUT', 'addressbooks/contacts/big.vcf', bigCard, { 'content-type': 'text/vcard' }))
    const notes = Object.fromEntries([
      ...Array.from({ length: 60 }, (_, i) => [`big ${i}.md`, new TextEncoder().encode(filler(999_000))]),
      ...Array.from({ length: 40 }, (_, i) => [`mid ${i}.md`, new TextEncoder().encode(filler(400_000))]),
    ])
    await upload('notes', 'notes.zip', zipSync(notes))
    const cards = Array.from(
      { length: 3000 },
      (_, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Person ${i}\r\nN:${i};Person;;;\r\nEND:VCARD\r\n`,
    )
    await upload('contacts', 'contacts.vcf', cards.join(''))
    const soon = Date.now() + 3_600_000
    const vevents = Array.from({ length: 300 }, (_, i) =>
      [
        'BEGIN:VEVENT',
        `UID:bench-${i}`,
        `DTSTART:${stamp(soon + i * 100_000)}`,
        `DTEND:${stamp(soon + i * 100_000 + 1_800_000)}`,
        `SUMMARY:${i} ${'t'.repeat(400)}`,
        `DESCRIPTION:${filler(90_000)}`,
        'RRULE:FREQ=WEEKLY',
        'END:VEVENT',
      ].join('\r\n'),
    )
    await upload(
      'events',
      'events.ics',
      `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n${vevents.join('\r\n')}\r\nEND:VCALENDAR\r\n`,
    )

    const search = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'lorem', limit: 200, format: 'full' } },
    })
    const mcp = (calls: number) =>
      fetch(`${api}/mcp`, {
        method: 'POST',
        headers: {
          ...bearer,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-03-26',
        },
        body: JSON.stringify(Array.from({ length: calls }, (_, i) => search(i + 1))),
      })
    const multiget = `<?xml version="1.0" encoding="utf-8"?><card:addressbook-multiget xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><d:prop><d:getetag/><card:address-data/></d:prop>${'<d:href>/dav/addressbooks/contacts/big.vcf</d:href>'.repeat(5000)}</card:addressbook-multiget>`
    const unknownProps = `<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:x="urn:x"><d:prop><d:getetag/>${Array.from({ length: 2000 }, (_, i) => `<x:p${i}/>`).join('')}</d:prop></d:propfind>`

    const attacks: Array<[string, () => Promise<Answered | null>]> = [
      ['at rest (3 s, no request)', async () => (await new Promise((r) => setTimeout(r, 3000)), null)],
      [
        'DAV multiget naming one 1 MB vCard 5,000 times (255 KB body)',
        async () => drain(await dav('REPORT', 'addressbooks/contacts/', multiget, { depth: '1' })),
      ],
      [
        'PROPFIND Depth 1: 2,000 unknown properties × 3,001 contacts',
        async () => drain(await dav('PROPFIND', 'addressbooks/contacts/', unknownProps, { depth: '1' })),
      ],
      ['MCP batch of 32 full searches (refused)', async () => drain(await mcp(32))],
      ['MCP batch of 16 full searches over 60 notes of 1 MB', async () => drain(await mcp(16))],
      [
        'GET /notes?limit=200 (60 notes of 1 MB, 40 of 400 KB)',
        async () => drain(await fetch(`${api}/notes?limit=200`, { headers: bearer })),
      ],
      [
        'GET /events?date=this_week (300 weekly series of 90 KB)',
        async () => drain(await fetch(`${api}/events?date=this_week&limit=200`, { headers: bearer })),
      ],
      [
        'GET /digest (300 weekly events of 90 KB, the notes, 3,001 contacts)',
        async () => drain(await fetch(`${api}/digest?period=day`, { headers: bearer })),
      ],
      ['POST /notes of 999,000 characters', async () => drain(await post('/notes', { title: 'large', content: filler(999_000) }))],
      [
        'POST /notes of 500,000 two-byte characters',
        async () => drain(await post('/notes', { title: 'large é', content: 'é'.repeat(500_000) })),
      ],
      ['GET /contacts/export (3,001 contacts)', async () => drain(await fetch(`${api}/contacts/export`, { headers: bearer }))],
    ]
    const rows: Record<string, string> = {}
    for (const [what, run] of attacks) {
      await new Promise((r) => setTimeout(r, 300))
      await resetLoopDelay(loopFile)
      const rest = Math.round(rssMb(daemon.pid))
      const load = loadAverage()
      const started = performance.now()
      const { result, probed } = await probeWhile(daemon, dns, run)
      const ms = Math.round(performance.now() - started)
      await new Promise((r) => setTimeout(r, 150))
      // The preload rewrites its file every 50 ms: a read amid a write finds it empty (0), so read until it is whole.
      let loop = loopDelay(loopFile)
      for (let i = 0; i < 10 && loop.maxMs === 0; i++) {
        await new Promise((r) => setTimeout(r, 20))
        loop = loopDelay(loopFile)
      }
      const answer = result ? `${result.status}, ${(result.bytes / 1048576).toFixed(1)} MB in ${ms} ms` : `${ms} ms`
      const { health, dns: names } = probed
      rows[what] = [
        answer,
        `/health max ${health.maxMs} p99 ${health.p99Ms} ms (${health.count} probes${health.lost ? `, ${health.lost} lost` : ''})`,
        `DNS max ${names.maxMs} p99 ${names.p99Ms} ms${names.lost ? ` (${names.lost} lost)` : ''}`,
        `loop max ${Math.round(loop.maxMs)} ms`,
        `RSS ${rest} → ${probed.rssPeakMb} MB`,
        `load ${load.toFixed(1)}-${loadAverage().toFixed(1)}`,
      ].join('; ')
      console.log(`${what}: ${rows[what]}`)
    }
    return rows
  } finally {
    dns.close()
    await daemon.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.table(await benchAttacks())
