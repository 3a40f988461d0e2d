/**
 * DNS record writes through the API as a zone grows to 10,000 records: the daemon in its own process
 * with the built-in server on, this process as the client (keep-alive, 16 requests in flight), each
 * write a real `POST /dns/zones/:id/records`. The baseline, measured in the same run, is the first
 * 1,000 writes into the empty zone: a write must cost the same at 10,000 records as at none.
 *
 * Run alone: node dist/scripts/bench/dns-writes.js
 */
import { pathToFileURL } from 'node:url'
import { freePort, json, ownerWithKey, startDaemon } from './harness.js'

const RECORDS = 10_000
const BATCH = 1_000
const IN_FLIGHT = 16

export async function benchDnsWrites(): Promise<Record<string, number | string>> {
  const daemon = await startDaemon({ HEARTH_DNS_PORT: String(await freePort()), HEARTH_DNS_HOST: '127.0.0.1' })
  try {
    const { token } = await ownerWithKey(daemon.url)
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` }
    const newZone = async (name: string) =>
      json<{ id: string }>(
        await fetch(`${daemon.url}/api/v1/dns/zones`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ zone: name, mode: 'authoritative' }),
        }),
      )
    let zone = await newZone('warmup.test')
    const post = async (i: number) => {
      const body = { type: 'A', name: `h${i}`, content: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, ttl: 300 }
      const res = await fetch(`${daemon.url}/api/v1/dns/zones/${zone.id}/records`, { method: 'POST', headers, body: JSON.stringify(body) })
      if (res.status !== 201) throw new Error(`write ${i}: ${res.status} ${await res.text()}`)
      await res.arrayBuffer()
    }
    // Warm the JIT on another zone first, so the baseline measures the zone's size, not a cold start.
    for (let i = 0; i < 500; i++) await post(i)
    zone = await newZone('writes.test')
    const rates: number[] = []
    for (let start = 0; start < RECORDS; start += BATCH) {
      let next = start
      const began = performance.now()
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < start + BATCH) await post(next++)
        }),
      )
      rates.push(Math.round(BATCH / ((performance.now() - began) / 1000)))
    }
    const first = rates[0] as number
    const last = rates.at(-1) as number
    return {
      'writes/s, first 1,000 (empty zone: baseline)': first,
      'writes/s, 9,000 → 10,000 records': last,
      'ratio (aim ≈ 1)': Math.round((last / first) * 100) / 100,
      'aim ≥ 1,000 writes/s at 10,000 records': last >= 1000 ? 'met' : 'not met',
    }
  } finally {
    await daemon.stop()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.table(await benchDnsWrites())
