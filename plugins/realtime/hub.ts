import type { WebSocket } from 'ws'
import type { AuthContext, EventBus, HearthEvent, ReadableEvent } from '../../core/plugin-api.js'
import { type DropReason, RealtimeClient } from './client.js'
import { briefMessage } from './brief.js'
import { type Journal, type JournalEntry, MAX_EVENT_BYTES } from './journal.js'

/** The credentials a client connected with, re-checked every ping interval. */
export interface Credentials {
  authorization?: string
  'x-svc-user-id'?: string | string[]
}

export interface HubOptions {
  events: EventBus
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }
  maxBufferBytes: number
  pingIntervalMs: number
  /** Resolves credentials to their user, throwing when they no longer hold (expired, revoked, user disabled). */
  reauthenticate?: (credentials: Credentials) => Promise<Pick<AuthContext, 'userId' | 'role' | 'scope'>>
  /** Where every event message is kept, with its seq, for `?since=` (none: seq counts in memory, no resume). */
  journal?: Journal
}

/** How a client connects: its event patterns, and the seq it resumes after (none: live events only). */
export interface AttachOptions {
  subscribe?: string[]
  since?: number
}

/** Close code for a connection whose token stopped being valid: reconnect with a fresh token. */
export const AUTH_EXPIRED = 4401

/**
 * Fans the event bus out to WebSocket clients. Every event is serialized
 * once with its seq, appended to the journal and handed to each interested
 * client's non-blocking send, inside the bus's synchronous dispatch: the
 * writer that emitted it never waits.
 */
export function createHub(opts: HubOptions) {
  const clients = new Set<RealtimeClient>()
  let seq = 0
  const message = (event: HearthEvent, n: number) =>
    JSON.stringify({ type: event.type, id: event.id ?? null, at: event.at, seq: n, data: event.data })

  const drop = (client: RealtimeClient, reason: DropReason) => {
    if (!clients.delete(client)) return
    opts.log.warn({ userId: client.auth.userId, reason, buffered: client.socket.bufferedAmount }, `realtime client dropped: ${reason}`)
    client.socket.terminate()
  }

  const unsubscribe = opts.events.on('*', (event: HearthEvent) => {
    // Journaled whether or not anyone listens now: the client that comes back later replays it.
    // Too large to journal whole (a record with a 1 MB body): journaled in brief, sent whole.
    const brief = (n: number) => briefMessage(event, n, MAX_EVENT_BYTES)
    const text = opts.journal ? opts.journal.append(event.userId, event.type, (n) => message(event, n), brief) : message(event, ++seq)
    let bytes = -1
    for (const client of clients) {
      if (!client.wants(event)) continue
      if (bytes < 0) bytes = Buffer.byteLength(text)
      client.send(text, bytes)
    }
  })

  // A token checked once at the upgrade must not keep a socket open after it expires or is revoked.
  // The role and scope that decide which events a client sees are the ones its credentials carry now.
  const recheck = async (client: RealtimeClient, credentials: Credentials) => {
    const still = await opts.reauthenticate?.(credentials).catch(() => null)
    if (!clients.has(client)) return
    if (still && still.userId === client.auth.userId) {
      client.auth = { userId: still.userId, role: still.role, scope: still.scope }
      return
    }
    clients.delete(client)
    opts.log.info({ userId: client.auth.userId }, 'realtime client closed: authentication no longer valid')
    client.socket.close(AUTH_EXPIRED, 'authentication expired')
  }

  /**
   * Without a journal nothing can be replayed: any cursor but the current one needs a resync. The
   * journal hands the user's own events, system-wide ones, and those of the members who share
   * something with them now; each of the latter is asked again (client.wants) whether it may be read.
   */
  const resume = (since: number, userId: string | null) =>
    opts.journal
      ? opts.journal.replay(since, userId, userId === null ? [] : opts.events.readableOwners(userId))
      : { resync: since !== seq, last: seq, entries: [] }

  /**
   * A journaled event as `wants` judges it: another member's is read back from its message (its
   * data says whose and where, its `at` when: a share made since does not open what came before it).
   */
  const judged = (entry: JournalEntry, userId: string | null): ReadableEvent => {
    if (entry.userId === null || entry.userId === userId) return { type: entry.type, userId: entry.userId, data: null, at: '' }
    const { data, at } = JSON.parse(entry.message) as { data?: unknown; at?: string }
    return { type: entry.type, userId: entry.userId, data, at: at ?? '' }
  }

  const credentials = new WeakMap<RealtimeClient, Credentials>()
  // A role change, a disabled user, a revoked key or a session signed out takes effect at once, not at the next ping.
  const recheckUser = (event: HearthEvent) => {
    for (const client of clients) {
      const given = credentials.get(client)
      if (client.auth.userId === event.userId && given) void recheck(client, given)
    }
  }
  const unsubscribeAccount = ['user.updated', 'api_key.revoked', 'session.ended'].map((type) => opts.events.on(type, recheckUser))
  const heartbeat = setInterval(() => {
    for (const client of clients) {
      client.heartbeat()
      const given = credentials.get(client)
      if (opts.reauthenticate && given && clients.has(client)) void recheck(client, given)
    }
  }, opts.pingIntervalMs)
  heartbeat.unref()

  return {
    /**
     * Adds a connection. With `since`, the journal's events after it (the user's own, through the
     * client's filter and scope, exactly as live delivery would) are replayed first, then live ones;
     * the cut between both is taken in this synchronous call, so nothing is lost or sent twice.
     * A cursor the journal cannot serve gets `resync_required` as the very first message.
     */
    attach(
      socket: WebSocket,
      auth: Pick<AuthContext, 'userId' | 'role' | 'scope'>,
      given: Credentials = {},
      options: AttachOptions = {},
    ): RealtimeClient {
      const subscribe = options.subscribe ?? ['*']
      const client = new RealtimeClient(
        socket,
        { userId: auth.userId, role: auth.role, scope: auth.scope },
        opts.maxBufferBytes,
        drop,
        subscribe,
        (userId, event) => opts.events.mayRead(userId, event),
      )
      clients.add(client)
      credentials.set(client, { authorization: given.authorization, 'x-svc-user-id': given['x-svc-user-id'] })
      socket.on('close', () => clients.delete(client))
      const last = opts.journal?.last() ?? seq
      const replay = options.since === undefined ? null : resume(options.since, auth.userId)
      if (replay?.resync) client.control('resync_required', { since: options.since, seq: replay.last })
      const missed =
        replay && !replay.resync ? replay.entries.filter((e) => client.wants(judged(e, auth.userId))).map((e) => e.message) : []
      client.control('ready', { user_id: auth.userId, subscribe, seq: last, replay: missed.length })
      if (missed.length) void client.replay(missed)
      return client
    },

    count: () => clients.size,

    /** Says goodbye (1001) to every client, then cuts the ones that do not answer within `graceMs`. */
    async close(graceMs = 500): Promise<void> {
      unsubscribe()
      for (const off of unsubscribeAccount) off()
      clearInterval(heartbeat)
      const open = [...clients]
      clients.clear()
      const closed = open.map(
        (c) =>
          new Promise<void>((resolve) => (c.socket.readyState === c.socket.CLOSED ? resolve() : c.socket.once('close', () => resolve()))),
      )
      for (const c of open) c.socket.close(1001, 'server shutting down')
      const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref())
      await Promise.race([Promise.all(closed), timer])
      for (const c of open) c.socket.terminate()
    },
  }
}

export type Hub = ReturnType<typeof createHub>
