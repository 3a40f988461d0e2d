import type { FastifyInstance, preHandlerHookHandler } from 'fastify'
import { withHook } from '../route-hooks.js'
import type { Db } from './sqlite.js'

/**
 * Group commit: the writing requests handled in one turn of the event loop
 * share one transaction, committed when the turn ends (setImmediate), and
 * none of them is answered before that commit. A commit, not a request, pays
 * for the WAL append and for flushing the full-text indexes' pending terms,
 * so concurrent creates cost a fraction of one transaction each.
 *
 * Durability is unchanged: an answer leaves only after COMMIT returned, and
 * with WAL + synchronous=NORMAL a committed transaction is in the WAL file,
 * which survives the process being killed (kill -9); only a power loss can
 * take the last commits, as before. Atomicity per request is unchanged too:
 * a failing statement rolls back only itself, and the services' own
 * transactions (db.transaction) become savepoints inside the batch.
 *
 * If COMMIT fails, every request of the batch answers 500 (none was
 * acknowledged). Reads answered while a batch is open wait for it as well,
 * so nobody is shown a write that could still be rolled back.
 */
export interface GroupCommit {
  /** Opens the turn's transaction if none is open (called before a writing request's handler). */
  join(): void
  /** The open batch's commit, or null when none is open. */
  settled(): Promise<void> | null
  /** Commits now (shutdown). */
  flush(): void
}

export function createGroupCommit(db: Db): GroupCommit {
  let open: { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } | null = null

  const commit = () => {
    const batch = open
    open = null
    if (!batch) return
    try {
      db.exec('COMMIT')
      batch.resolve()
    } catch (err) {
      try {
        if (db.inTransaction) db.exec('ROLLBACK')
      } catch {}
      batch.reject(err as Error)
    }
  }

  return {
    join() {
      // Someone else's transaction (a migration, a job's db.transaction in progress): leave it alone.
      if (open || db.inTransaction) return
      try {
        db.exec('BEGIN IMMEDIATE')
      } catch {
        return // The write lock is busy (the CLI writing): the request's statements wait or fail on their own.
      }
      let resolve!: () => void
      let reject!: (err: Error) => void
      const promise = new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      })
      // A rejection nobody awaits (no answer pending) must not crash the process.
      promise.catch(() => undefined)
      open = { promise, resolve, reject }
      setImmediate(commit)
    },
    settled: () => open?.promise ?? null,
    flush: commit,
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Writing requests join the turn's batch before their handler; every answer waits for an open batch's commit.
 * The joining hook is set on writing routes only: a read then runs no preHandler stage at all.
 */
export function installGroupCommit(app: FastifyInstance, group: GroupCommit): void {
  const join: preHandlerHookHandler = (request, _reply, done) => {
    if (WRITES.has(request.method)) group.join()
    done()
  }
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().some((method) => WRITES.has(method))) return
    route.preHandler = withHook(route.preHandler, join, 'first')
  })
  app.addHook('onSend', (_request, _reply, payload, done) => {
    const pending = group.settled()
    if (!pending) return done(null, payload)
    pending.then(
      () => done(null, payload),
      (err: Error) => done(err),
    )
  })
}
