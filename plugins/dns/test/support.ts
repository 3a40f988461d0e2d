import { execFile } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { createServer as createHttp } from 'node:http'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { auth } from '../../../test/helper.js'

/** Test support for the DNS plugin: free ports, real `dig`, small local HTTP services. */

/** A port free for both TCP and UDP on 127.0.0.1. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const tcp = createServer()
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r))
    const { port } = tcp.address() as AddressInfo
    const udp = createSocket('udp4')
    const ok = await new Promise<boolean>((r) => {
      udp.once('error', () => r(false))
      udp.bind(port, '127.0.0.1', () => r(true))
    })
    await new Promise<void>((r) => tcp.close(() => r()))
    if (ok) {
      await new Promise<void>((r) => udp.close(() => r()))
      return port
    }
  }
  throw new Error('no free port')
}

export interface DigResult {
  status: string
  aa: boolean
  answers: string[]
  authority: string[]
}

/** Runs the real dig against 127.0.0.1:port; answers as 'name ttl type data' lines without the class. */
export function dig(port: number, name: string, type: string, opts: { tcp?: boolean } = {}): Promise<DigResult> {
  const args = [
    '@127.0.0.1',
    '-p',
    String(port),
    name,
    type,
    '+norecurse',
    '+time=2',
    '+tries=1',
    '+noall',
    '+comments',
    '+answer',
    '+authority',
  ]
  if (opts.tcp) args.push('+tcp')
  return new Promise((resolve, reject) => {
    execFile('dig', args, (err, stdout) => {
      if (err) return reject(err)
      const status = /status: ([A-Z]+)/.exec(stdout)?.[1] ?? 'NONE'
      const aa = /flags:[^;]*\baa\b/.test(stdout)
      const sections: Record<string, string[]> = { answer: [], authority: [] }
      let current: string | null = null
      for (const line of stdout.split('\n')) {
        const header = /^;; (ANSWER|AUTHORITY) SECTION:/.exec(line)
        if (header) current = (header[1] as string).toLowerCase()
        else if (line.startsWith(';') || line.trim() === '') current = line.trim() === '' ? null : current
        else if (current)
          sections[current]?.push(
            line
              .split(/\s+/)
              .filter((_, i) => i !== 2)
              .join(' '),
          )
      }
      resolve({ status, aa, answers: sections.answer as string[], authority: sections.authority as string[] })
    })
  })
}

/** A local plain-text or JSON HTTP service whose answer tests change. */
export async function localService(initial: string | object, contentType = 'text/plain') {
  let body = initial
  let status = 200
  const hits: string[] = []
  const server = createHttp((req, res) => {
    hits.push(req.url ?? '/')
    res.writeHead(status, { 'content-type': contentType })
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    set(next: string | object, code = 200) {
      body = next
      status = code
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

/** Small API shorthands bound to one user's token. */
export function dnsApi(app: FastifyInstance, token: string) {
  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, payload?: object) =>
    app.inject({ method, url: `/api/v1/dns${path}`, headers: auth(token), ...(payload ? { payload } : {}) })
  return {
    call,
    zone: async (zone: string) => {
      const res = await call('POST', '/zones', { zone, mode: 'authoritative' })
      if (res.statusCode !== 201) throw new Error(`zone: ${res.body}`)
      return res.json().data as { id: string; zone: string }
    },
    record: (zoneId: string, body: object) => call('POST', `/zones/${zoneId}/records`, body),
  }
}
