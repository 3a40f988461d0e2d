import type { WebSocket } from 'ws'
import type { AuthContext, HearthEvent } from '../../core/plugin-api.js'
import { eventMatches as matches } from '../../core/plugin-api.js'
import { parseClientMessage } from './messages.js'

/** Events of the records (notes, contacts, calendar): all a sync key may see. */
const RECORD_EVENT = /^(note|contact|event)\./

/** How one connection is closed when it misbehaves; the hub removes it. */
export type DropReason = 'buffer overflow' | 'heartbeat timeout'

/**
 * One WebSocket connection: whose events it may see, which of them it asked
 * for, and a send that never waits. Backpressure is the socket's
 * bufferedAmount: a client that stops reading is dropped as soon as its
 * unsent backlog would pass the limit, so the hub's memory per client is
 * bounded and a writer never waits for a reader.
 */
export class RealtimeClient {
  private patterns: string[] = ['*']
  private alive = true

  constructor(
    readonly socket: WebSocket,
    /** Replaced by the hub when a re-check finds the role or scope changed. */
    public auth: Pick<AuthContext, 'userId' | 'role' | 'scope'>,
    private readonly maxBufferBytes: number,
    private readonly drop: (client: RealtimeClient, reason: DropReason) => void,
  ) {
    socket.on('pong', () => {
      this.alive = true
    })
    socket.on('message', (data, isBinary) => this.receive(isBinary ? null : data.toString()))
  }

  /**
   * Own events only; system-wide events (no userId, e.g. driver swaps) go to admins and owners; a
   * key sees what its scope reads over REST (decisions.md: sync keys reach records only).
   */
  wants(event: HearthEvent): boolean {
    const mine = event.userId === null ? this.auth.role === 'owner' || this.auth.role === 'admin' : event.userId === this.auth.userId
    if (!mine || (this.auth.scope === 'sync' && !RECORD_EVENT.test(event.type))) return false
    return this.patterns.some((p) => matches(p, event.type))
  }

  send(text: string, bytes: number): void {
    if (this.socket.readyState !== this.socket.OPEN) return
    if (this.socket.bufferedAmount + bytes > this.maxBufferBytes) {
      this.drop(this, 'buffer overflow')
      return
    }
    this.socket.send(text)
  }

  control(type: 'ready' | 'subscribed' | 'error', data: unknown): void {
    const text = JSON.stringify({ type, id: null, at: new Date().toISOString(), data })
    this.send(text, Buffer.byteLength(text))
  }

  /** Called every ping interval: a client that did not answer the previous ping is dead. */
  heartbeat(): void {
    if (!this.alive) {
      this.drop(this, 'heartbeat timeout')
      return
    }
    this.alive = false
    this.socket.ping()
  }

  private receive(text: string | null): void {
    const parsed = parseClientMessage(text)
    if ('error' in parsed) {
      this.control('error', parsed.error)
      return
    }
    this.patterns = parsed.subscribe
    this.control('subscribed', { subscribe: this.patterns })
  }
}
