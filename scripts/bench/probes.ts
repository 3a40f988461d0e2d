import { createSocket } from 'node:dgram'
import { readFileSync } from 'node:fs'

/**
 * What a household's other clients see while one request runs: `/health` over HTTP and a DNS query over
 * UDP (the DNS server shares the daemon's event loop), each sent again ~20 ms after its last answer, and
 * the daemon's resident memory sampled at the same pace.
 */
export interface Probed {
  health: Latencies
  dns: Latencies
  /** The highest VmRSS seen, MB. */
  rssPeakMb: number
}

export interface Latencies {
  maxMs: number
  p99Ms: number
  count: number
  /** Probes unanswered within 5 s. */
  lost: number
}

const GAP_MS = 20
const TIMEOUT_MS = 5000

export const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

/** The 1-minute load average: the figures beside it are judged at that load. */
export const loadAverage = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])

function latencies(samples: number[], lost: number): Latencies {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0
  return { maxMs: Math.round(sorted.at(-1) ?? 0), p99Ms: Math.round(at(0.99)), count: sorted.length, lost }
}

/** A DNS query for `name` A, as dig sends it (recursion not desired). */
export function dnsQuery(id: number, name: string): Buffer {
  const labels = name.split('.').filter(Boolean)
  const question = Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])),
    Buffer.from([0, 0, 1, 0, 1]),
  ])
  const header = Buffer.alloc(12)
  header.writeUInt16BE(id, 0)
  header.writeUInt16BE(1, 4)
  return Buffer.concat([header, question])
}

/** One UDP client that asks `name` A of 127.0.0.1:port: each `ask()` resolves with the answer's RCODE and answer count. */
export function dnsClient(port: number, name: string) {
  const socket = createSocket('udp4')
  let id = 0
  const waiting = new Map<number, (answer: { rcode: number; answers: number }) => void>()
  socket.on('message', (msg) => {
    const done = waiting.get(msg.readUInt16BE(0))
    waiting.delete(msg.readUInt16BE(0))
    done?.({ rcode: msg.readUInt8(3) & 0x0f, answers: msg.readUInt16BE(6) })
  })
  return {
    ask(): Promise<{ rcode: number; answers: number } | null> {
      id = (id + 1) & 0xffff
      const mine = id
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(mine)
          resolve(null)
        }, TIMEOUT_MS)
        waiting.set(mine, (answer) => {
          clearTimeout(timer)
          resolve(answer)
        })
        socket.send(dnsQuery(mine, name), port, '127.0.0.1')
      })
    },
    close: () => socket.close(),
  }
}

/** Probes /health, DNS and memory until `work` settles; returns what `work` gave and what the probes saw. */
export async function probeWhile<T>(
  daemon: { url: string; pid: number },
  dns: ReturnType<typeof dnsClient>,
  work: () => Promise<T>,
): Promise<{ result: T; probed: Probed }> {
  let running = true
  const loop = async (once: () => Promise<boolean>) => {
    const samples: number[] = []
    let lost = 0
    while (running) {
      const started = performance.now()
      if (await once()) samples.push(performance.now() - started)
      else lost++
      await new Promise((r) => setTimeout(r, GAP_MS))
    }
    return latencies(samples, lost)
  }
  const health = loop(async () => {
    try {
      const res = await fetch(`${daemon.url}/api/v1/health`, { signal: AbortSignal.timeout(TIMEOUT_MS) })
      await res.arrayBuffer()
      return res.ok
    } catch {
      return false
    }
  })
  const names = loop(async () => (await dns.ask())?.rcode === 0)
  let rssPeakMb = rssMb(daemon.pid)
  const sampler = setInterval(() => {
    try {
      rssPeakMb = Math.max(rssPeakMb, rssMb(daemon.pid))
    } catch {
      // the daemon is gone: the attack's row says so
    }
  }, GAP_MS)
  try {
    const result = await work()
    running = false
    return { result, probed: { health: await health, dns: await names, rssPeakMb: Math.round(rssPeakMb) } }
  } finally {
    running = false
    clearInterval(sampler)
  }
}
