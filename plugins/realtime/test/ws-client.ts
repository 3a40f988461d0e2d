import type { AddressInfo } from 'node:net'
import WebSocket from 'ws'
import { build, type TestContext } from '../../../test/helper.js'

/** A test app listening on a free port, and its WebSocket URL. */
export async function listening(t: TestContext, opts: { env?: Record<string, string>; dataDir?: string } = {}) {
  const app = await build(t, opts)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/ws`
  return { app, url }
}

export interface Message {
  type: string
  id: string | null
  at: string
  /** Event messages only: their place in the instance's journal. */
  seq?: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON came back and asserts its shape itself
  data: any
}

/** A test-side WebSocket client that records every message and can wait for one. */
export class TestClient {
  readonly messages: Message[] = []
  private waiters: Array<{ pred: (m: Message) => boolean; resolve: (m: Message) => void }> = []

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Message
      this.messages.push(message)
      this.waiters = this.waiters.filter((w) => (w.pred(message) ? (w.resolve(message), false) : true))
    })
  }

  /** Opens and waits for the hub's `ready` message. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<TestClient> {
    const ws = new WebSocket(url, { headers })
    const client = new TestClient(ws)
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    })
    await client.next((m) => m.type === 'ready')
    return client
  }

  /** The first message (already received or coming) matching `pred`. */
  next(pred: (m: Message) => boolean, timeoutMs = 3000): Promise<Message> {
    const seen = this.messages.find(pred)
    if (seen) return Promise.resolve(seen)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for a message')), timeoutMs)
      this.waiters.push({ pred, resolve: (m) => (clearTimeout(timer), resolve(m)) })
    })
  }

  of(type: string): Message[] {
    return this.messages.filter((m) => m.type === type)
  }

  async subscribe(patterns: unknown): Promise<Message> {
    const before = this.messages.length
    this.ws.send(JSON.stringify({ subscribe: patterns }))
    return this.next((m) => (m.type === 'subscribed' || m.type === 'error') && this.messages.indexOf(m) >= before)
  }

  closed(): Promise<number> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve(-1)
    return new Promise((resolve) => this.ws.once('close', (code) => resolve(code)))
  }

  close(): void {
    this.ws.terminate()
  }
}

/** The HTTP status a refused upgrade answers with. */
export function refusedStatus(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.once('open', () => reject(new Error('upgrade was accepted')))
    ws.once('error', () => undefined)
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
  })
}
