import type { Test } from 'tap'
import { type DnsLogger, type DnsServer, type DnsServerOptions, type ZoneData, createDnsServer } from '../index.js'

/** Collects log lines so tests can assert on warnings. */
export function memoryLog(): DnsLogger & { lines: string[] } {
  const lines: string[] = []
  const push = (msg: string) => void lines.push(msg)
  return { lines, info: push, warn: push, error: push, debug: push }
}

/** A real server on a free loopback port, stopped in teardown. */
export async function startServer(
  t: Test,
  zones: ZoneData[],
  opts: Partial<DnsServerOptions> = {},
): Promise<{ server: DnsServer; port: number; log: ReturnType<typeof memoryLog> }> {
  const log = memoryLog()
  const server = createDnsServer({ host: '127.0.0.1', port: 0, log, ...opts })
  server.setZones(zones)
  const started = await server.start()
  if (!started.udp || !started.tcp) throw new Error(`DNS test server did not start: ${started.error}`)
  t.teardown(() => server.stop())
  return { server, port: started.port, log }
}
