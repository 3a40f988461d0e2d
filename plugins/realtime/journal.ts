import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../core/plugin-api.js'

/**
 * The bounded, persisted journal of event messages behind `?since=<seq>`.
 *
 * `append` runs inside the event bus's synchronous dispatch, so it only assigns the seq
 * (in memory, one above the last) and queues the row; the queue is written in one
 * transaction on the next turn of the event loop (or at once past MAX_PENDING rows), so a
 * record write pays for no second commit. A replay writes the queue first. Trimming (by
 * count, by bytes and by age) runs every `size/10` appends, every `maxBytes/8` bytes and on
 * the plugin's timer, and records the highest seq it removed: a cursor below that may have
 * missed events.
 *
 * An event larger than `maxEventBytes` is journaled in brief (its `brief` form: the record's
 * small fields and what identifies it, the large ones named as left out): live clients get it
 * whole, a client resuming later reads the record by its id. One large record saved over and
 * over therefore cannot fill the disk with copies of itself.
 *
 * A crash can lose the queue (at most MAX_PENDING events, already delivered live). A start
 * after an unclean stop therefore moves the seq MAX_PENDING past the last one written and
 * treats every older cursor as trimmed: clients resync rather than silently miss events.
 */
export const MAX_PENDING = 256
/** The largest event message journaled whole. */
export const MAX_EVENT_BYTES = 64 * 1024

/** How soon a write the database refused is tried again: doubling from the first to the last. */
const RETRY_FIRST_MS = 100
const RETRY_LAST_MS = 10_000
/** Rows queued at most while the database refuses them; older ones are dropped (their cursors resync). */
const MAX_QUEUED = 16 * MAX_PENDING

export interface JournalOptions {
  /** Events kept at most (the newest). */
  size: number
  /** Events older than this are dropped. */
  maxAgeMs: number
  /** Message bytes kept at most (the newest events); default 64 MiB. */
  maxBytes?: number
  /** A message larger than this is journaled in its brief form; default MAX_EVENT_BYTES. */
  maxEventBytes?: number
  now: () => number
  /** A queued write or a trim the database refused; the rows stay queued and are tried again. */
  onError?: (err: Error, what: 'write' | 'trim') => void
}

export interface JournalEntry {
  seq: number
  userId: string | null
  type: string
  message: string
}

export type Replay = { resync: true; last: number } | { resync: false; last: number; entries: JournalEntry[] }

interface State {
  trimmed_through: number
  last_seq: number
  clean: number
}

export function createJournal(db: Database.Database, options: JournalOptions) {
  const opts = { maxBytes: 64 * 1024 * 1024, maxEventBytes: MAX_EVENT_BYTES, ...options }
  // Prepared on first use: most daemons never replay or trim (docs/performance.md, sixth pass).
  const q = preparedOnUse(db, {
    insert: () => db.prepare('INSERT INTO realtime_journal (seq, user_id, type, at_ms, message, bytes_before) VALUES (?, ?, ?, ?, ?, ?)'),
    after: () =>
      db.prepare<[number, number, string | null, string], { seq: number; user_id: string | null; type: string; message: string }>(
        'SELECT seq, user_id, type, message FROM realtime_journal WHERE seq > ? AND seq <= ? ' +
          'AND (user_id = ? OR user_id IS NULL OR user_id IN (SELECT value FROM json_each(?))) ORDER BY seq',
      ),
    // INDEXED BY: left to itself SQLite answers max(seq) by walking the table back from the newest row
    // until one is old enough, reading every event kept (migrations/002-journal-age-index.sql).
    cutByAge: () =>
      db.prepare<[number], { seq: number | null }>(
        'SELECT max(seq) AS seq FROM realtime_journal INDEXED BY realtime_journal_at_ms WHERE at_ms < ?',
      ),
    // The oldest event to keep for the byte limit is the first whose running total reaches it (migrations/003).
    cutByBytes: () =>
      db.prepare<[number], { seq: number }>(
        'SELECT seq FROM realtime_journal INDEXED BY realtime_journal_bytes_before WHERE bytes_before < ? ORDER BY bytes_before DESC LIMIT 1',
      ),
    remove: () => db.prepare('DELETE FROM realtime_journal WHERE seq <= ?'),
    saveState: () => db.prepare('UPDATE realtime_journal_state SET trimmed_through = ?, last_seq = ?, clean = ? WHERE id = 1'),
  })

  const state = db.prepare('SELECT trimmed_through, last_seq, clean FROM realtime_journal_state WHERE id = 1').get() as State
  const newestRow = db
    .prepare('SELECT seq, bytes_before + length(CAST(message AS BLOB)) AS total FROM realtime_journal ORDER BY seq DESC LIMIT 1')
    .get() as { seq: number; total: number } | undefined
  const newest = newestRow?.seq ?? 0
  /** The running total of message bytes, the newest event's included (queued ones too). */
  let totalBytes = newestRow?.total ?? 0
  let last = Math.max(newest, state.last_seq, state.trimmed_through)
  let trimmedThrough = state.trimmed_through
  if (!state.clean) {
    // Seqs up to MAX_PENDING past the last written row may have been handed out and lost.
    last += MAX_PENDING
    trimmedThrough = last
  }
  q.saveState.run(trimmedThrough, last, 0)

  let pending: Array<[number, string | null, string, number, string, number]> = []
  let scheduled = false
  let closed = false
  let sinceTrim = 0
  let bytesSinceTrim = 0
  const trimEvery = Math.max(64, Math.ceil(opts.size / 10))
  const trimEveryBytes = Math.max(64 * 1024, Math.ceil(opts.maxBytes / 8))

  const write = db.transaction((rows: typeof pending) => {
    for (const row of rows) q.insert.run(...row)
  })

  let retry: { timer: NodeJS.Timeout; ms: number } | null = null

  /**
   * Writes the queued rows (one transaction), then trims when enough arrived. It runs from the event
   * loop: a database refusing the write (busy past its timeout: another process in a long write) must
   * not take the daemon down, so the rows stay queued and are tried again later, backing off; a retry
   * does not wait for the lock (busy timeout 0), so the event loop is held once, not at every attempt.
   */
  const flush = () => {
    scheduled = false
    if (pending.length === 0 || closed) return
    const rows = pending
    pending = []
    const retrying = retry !== null
    if (retry) clearTimeout(retry.timer)
    const waitMs = retrying ? (db.pragma('busy_timeout', { simple: true }) as number) : 0
    try {
      if (retrying) db.pragma('busy_timeout = 0')
      write(rows)
    } catch (err) {
      pending = rows.concat(pending)
      dropOverflow()
      const ms = retry ? Math.min(retry.ms * 2, RETRY_LAST_MS) : RETRY_FIRST_MS
      // Said once per refusal streak, not at every attempt.
      if (!retry) opts.onError?.(err as Error, 'write')
      retry = { timer: setTimeout(flush, ms).unref(), ms }
      return
    } finally {
      if (retrying) db.pragma(`busy_timeout = ${waitMs}`)
    }
    retry = null
    sinceTrim += rows.length
    if (sinceTrim >= trimEvery || bytesSinceTrim >= trimEveryBytes) trimQuietly()
  }

  /** While refused, the oldest rows beyond MAX_QUEUED go: a cursor before the newest dropped resyncs. */
  const dropOverflow = () => {
    if (pending.length <= MAX_QUEUED) return
    const dropped = pending.splice(0, pending.length - MAX_QUEUED)
    trimmedThrough = Math.max(trimmedThrough, (dropped.at(-1) as (typeof pending)[number])[0])
  }

  /**
   * Drops what is past the size or the age; returns how many went. IMMEDIATE: it reads before it
   * deletes, and a read snapshot cannot be upgraded to a write once another connection committed
   * (SQLite answers SQLITE_BUSY at once, without waiting): the write lock is taken first.
   */
  const trim = db.transaction((): number => {
    sinceTrim = 0
    bytesSinceTrim = 0
    // The newest `size` events a cursor can resume from: every seq above trimmedThrough was handed out once
    // and is written or queued (a crash or a dropped overflow moves trimmedThrough past the seqs it lost), so
    // they are the seqs above last - size. No query: counting back `size` rows read every message they hold.
    const bySize = last - opts.size
    const byAge = q.cutByAge.get(opts.now() - opts.maxAgeMs)?.seq ?? 0
    // Kept: the events that start at or after totalBytes - maxBytes: their bytes fit the limit.
    const byBytes = totalBytes > opts.maxBytes ? (q.cutByBytes.get(totalBytes - opts.maxBytes)?.seq ?? 0) : 0
    const cut = Math.max(bySize, byAge, byBytes)
    if (cut <= trimmedThrough) return 0
    const removed = q.remove.run(cut).changes
    trimmedThrough = cut
    q.saveState.run(trimmedThrough, last, 0)
    return removed
  }).immediate

  /** A trim from the event loop or a timer: refused now, it runs again at the next one. */
  const trimQuietly = (): void => {
    try {
      trim()
    } catch (err) {
      opts.onError?.(err as Error, 'trim')
    }
  }

  return {
    /** The last seq handed out. */
    last: () => last,

    /**
     * Queues one message (built by `render` with its seq); returns its text. A message past
     * `maxEventBytes` is journaled as `brief` makes it (without: whole).
     */
    append(userId: string | null, type: string, render: (seq: number) => string, brief?: (seq: number) => string): string {
      const seq = ++last
      const message = render(seq)
      if (closed) return message // an event published while the daemon stops: live only
      let kept = message
      let bytes = Buffer.byteLength(message)
      if (bytes > opts.maxEventBytes && brief) {
        kept = brief(seq)
        bytes = Buffer.byteLength(kept)
      }
      pending.push([seq, userId, type, opts.now(), kept, totalBytes])
      totalBytes += bytes
      bytesSinceTrim += bytes
      // Inside a caller's transaction a write would roll back with it: wait for the next turn. While
      // the database refuses writes, the retry timer writes (an append must not wait for the lock).
      if (pending.length >= MAX_PENDING && !db.inTransaction && !retry) flush()
      else if (retry) dropOverflow()
      else if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
      return message
    },

    /**
     * What a client resuming after `since` gets: the entries of `userId`, of the users in `others`
     * (whose events the caller then judges one by one) and system-wide ones, up to now; or resync
     * when events after `since` may be gone (trimmed, lost in a crash) or `since` is from the
     * future (another journal: a restored backup, another instance).
     */
    replay(since: number, userId: string | null, others: readonly string[] = []): Replay {
      if (since < trimmedThrough || since > last) return { resync: true, last }
      if (!db.inTransaction) flush()
      const written = q.after
        .all(since, last, userId, JSON.stringify(others))
        .map((r) => ({ seq: r.seq, userId: r.user_id, type: r.type, message: r.message }))
      // Rows still queued (a replay from inside a transaction) come from memory.
      const queued = pending
        .filter(([seq, owner]) => seq > since && (owner === userId || owner === null || (owner !== null && others.includes(owner))))
        .map(([seq, owner, type, , message]) => ({ seq, userId: owner, type, message }))
      return { resync: false, last, entries: [...written, ...queued] }
    },

    trim,
    trimQuietly,

    /** At a clean stop: everything written, and the next start knows it (not clean when rows could not be). */
    close(): void {
      flush()
      closed = true
      if (retry) clearTimeout(retry.timer)
      try {
        q.saveState.run(trimmedThrough, last, pending.length === 0 ? 1 : 0)
      } catch (err) {
        // Still refused: the state stays "not clean", so the next start makes every older cursor resync.
        opts.onError?.(err as Error, 'write')
      }
    },
  }
}

export type Journal = ReturnType<typeof createJournal>
