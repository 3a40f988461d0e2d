import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A tiny local HTTP server for the providers' wire-format stand-ins: each
 * provider's test/server.ts supplies `handle`, which sees the parsed request
 * and answers exactly what the provider documents.
 */
export interface FakeRequest {
  method: string
  path: string
  query: URLSearchParams
  headers: IncomingMessage['headers']
  /** Raw body text. */
  body: string
}

export interface FakeReply {
  status: number
  body: string | object | null
  contentType?: string
}

export interface FakeServer {
  url: string
  /** Every request seen, in order (for asserting the wire format). */
  requests: FakeRequest[]
  close(): Promise<void>
}

export async function startFake(handle: (req: FakeRequest) => FakeReply, basePath = ''): Promise<FakeServer> {
  const requests: FakeRequest[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://local')
      const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname
      const fake: FakeRequest = {
        method: req.method ?? 'GET',
        path,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      requests.push(fake)
      let reply: FakeReply
      try {
        reply = handle(fake)
      } catch (err) {
        reply = { status: 500, body: `fake server bug: ${(err as Error).message}`, contentType: 'text/plain' }
      }
      const text = reply.body === null ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
      res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json' })
      res.end(text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Parses a JSON request body, or null when it is not JSON. */
export function jsonBody(req: FakeRequest): Record<string, unknown> | null {
  try {
    const v = JSON.parse(req.body)
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** A fake provider's stored record, in the provider's own terms. */
export interface StoredRecord {
  id: string
  [field: string]: unknown
}

/** Zones and their records, shared shape for the fakes. */
export class FakeZones {
  private nextId = 1000
  readonly zones = new Map<string, StoredRecord[]>()

  add(zone: string, records: Array<Omit<StoredRecord, 'id'>> = []): void {
    this.zones.set(
      zone,
      records.map((r) => ({ ...r, id: this.id() })),
    )
  }

  id(): string {
    return String(this.nextId++)
  }

  records(zone: string): StoredRecord[] | undefined {
    return this.zones.get(zone)
  }
}
