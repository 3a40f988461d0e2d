import type { WebSocket } from 'ws'
import type { AuthContext, ReadableEvent } from '../../core/plugin-api.js'
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
  private alive = true
  /** While a replay runs, live messages wait here (in order, bytes counted against the same limit). */
  private held: Array<{ text: string; bytes: number }> | null = null
  private heldBytes = 0

  constructor(
    readonly socket: WebSocket,
    /** Replaced by the hub when a re-check finds the role or scope changed. */
    public auth: Pick<AuthContext, 'userId' | 'role' | 'scope'>,
    private readonly maxBufferBytes: number,
    private readonly drop: (client: RealtimeClient, reason: DropReason) => void,
    /** The event patterns it receives: '*' until it subscribes (or `?subscribe=` at connect). */
    private patterns: string[] = ['*'],
    /** Whether the user may read another user's event now (the bus's readers rules: what is shared with them). */
    private readonly readable: (userId: string, event: ReadableEvent) => boolean = () => false,
  ) {
    socket.on('pong', () => {
      this.alive = true
    })
    socket.on('message', (data, isBinary) => this.receive(isBinary ? null : data.toString()))
  }

  /**
   * Own events, and another member's events the user may read now (a record of a collection they
   * share with this user: asked at each delivery, so an unshare stops them at once); system-wide
   * events (no userId, e.g. driver swaps) go to admins and owners; a key sees what its scope reads
   * over REST (docs/api.md: sync keys reach records only).
   */
  wants(event: ReadableEvent): boolean {
    const system = event.userId === null
    if (system ? this.auth.role !== 'owner' && this.auth.role !== 'admin' : false) return false
    if (this.auth.scope === 'sync' && !RECORD_EVENT.test(event.type)) return false
    if (!this.patterns.some((p) => matches(p, event.type))) return false
    return system || event.userId === this.auth.userId || (this.auth.userId !== null && this.readable(this.auth.userId, event))
  }

  send(text: string, bytes: number): void {
    if (this.socket.readyState !== this.socket.OPEN) return
    if (this.held) {
      this.heldBytes += bytes
      if (this.heldBytes > this.maxBufferBytes) this.drop(this, 'buffer overflow')
      else this.held.push({ text, bytes })
      return
    }
    if (this.socket.bufferedAmount + bytes > this.maxBufferBytes) {
      this.drop(this, 'buffer overflow')
      return
    }
    this.socket.send(text)
  }

  /**
   * Sends journal messages the client missed, paced by the socket's backlog (a long replay
   * never trips the overflow limit), then what arrived live meanwhile, in order.
   */
  async replay(messages: string[]): Promise<void> {
    this.held = []
    const low = this.maxBufferBytes / 2
    for (const text of messages) {
      while (this.socket.readyState === this.socket.OPEN && this.socket.bufferedAmount > low) {
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      if (this.socket.readyState !== this.socket.OPEN) return
      this.socket.send(text)
    }
    const live = this.held
    this.held = null
    this.heldBytes = 0
    for (const { text, bytes } of live) this.send(text, bytes)
  }

  control(type: 'ready' | 'subscribed' | 'error' | 'resync_required', data: unknown): void {
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
