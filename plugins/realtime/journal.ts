import type Database from 'better-sqlite3'

/**
 * The bounded, persisted journal of event messages behind `?since=<seq>`.
 *
 * `append` runs inside the event bus's synchronous dispatch, so it is one prepared
 * INSERT (no read, no trim); the seq is assigned here in memory, one above the last,
 * so a rolled-back write never makes a seq reappear. Trimming (by count and by age)
 * runs every `trimEvery` appends and on a timer, and records the highest seq it removed:
 * a cursor below that may have missed events.
 */
export interface JournalOptions {
  /** Events kept at most (the newest). */
  size: number
  /** Events older than this are dropped. */
  maxAgeMs: number
  now: () => number
}

export interface JournalEntry {
  seq: number
  userId: string | null
  type: string
  message: string
}

export type Replay = { resync: true; last: number; trimmedThrough: number } | { resync: false; last: number; entries: JournalEntry[] }

export function createJournal(db: Database.Database, opts: JournalOptions) {
  const insert = db.prepare('INSERT INTO realtime_journal (seq, user_id, type, at_ms, message) VALUES (?, ?, ?, ?, ?)')
  const after = db.prepare<[number, number, string | null], { seq: number; user_id: string | null; type: string; message: string }>(
    'SELECT seq, user_id, type, message FROM realtime_journal WHERE seq > ? AND seq <= ? AND (user_id = ? OR user_id IS NULL) ORDER BY seq',
  )
  const state = db.prepare<[], { trimmed_through: number }>('SELECT trimmed_through FROM realtime_journal_state WHERE id = 1')
  const cutBySize = db.prepare<[number], { seq: number } | undefined>('SELECT seq FROM realtime_journal ORDER BY seq DESC LIMIT 1 OFFSET ?')
  const cutByAge = db.prepare<[number], { seq: number | null }>('SELECT max(seq) AS seq FROM realtime_journal WHERE at_ms < ?')
  const remove = db.prepare('DELETE FROM realtime_journal WHERE seq <= ?')
  const setTrimmed = db.prepare('UPDATE realtime_journal_state SET trimmed_through = max(trimmed_through, ?) WHERE id = 1')

  // The last seq ever handed out (sqlite_sequence survives trimming the table empty).
  const stored = db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'realtime_journal'`).get() as { seq: number } | undefined
  let last = stored?.seq ?? 0
  let trimmedThrough = state.get()?.trimmed_through ?? 0
  let sinceTrim = 0
  const trimEvery = Math.max(64, Math.ceil(opts.size / 10))

  /** Drops what is past the size or the age; returns how many went. */
  const trim = (): number =>
    db.transaction(() => {
      const bySize = cutBySize.get(opts.size)?.seq ?? 0
      const byAge = cutByAge.get(opts.now() - opts.maxAgeMs)?.seq ?? 0
      const cut = Math.max(bySize, byAge)
      sinceTrim = 0
      if (cut <= 0) return 0
      const removed = remove.run(cut).changes
      setTrimmed.run(cut)
      trimmedThrough = Math.max(trimmedThrough, cut)
      return removed
    })()

  return {
    /** The last seq handed out. */
    last: () => last,

    /** Stores one message (built by `render` with its seq) and returns its seq and text. */
    append(userId: string | null, type: string, render: (seq: number) => string): { seq: number; message: string } {
      const seq = ++last
      const message = render(seq)
      insert.run(seq, userId, type, opts.now(), message)
      if (++sinceTrim >= trimEvery) trim()
      return { seq, message }
    },

    /**
     * What a client resuming after `since` gets: the entries of `userId` (and system-wide ones)
     * up to now, or resync when events after `since` were trimmed or `since` is from the future
     * (another journal: a restored backup, another instance).
     */
    replay(since: number, userId: string | null): Replay {
      if (since < trimmedThrough || since > last) return { resync: true, last, trimmedThrough }
      const entries = after.all(since, last, userId).map((r) => ({ seq: r.seq, userId: r.user_id, type: r.type, message: r.message }))
      return { resync: false, last, entries }
    },

    trim,
  }
}

export type Journal = ReturnType<typeof createJournal>
