import type { OffsiteProgress } from '../../drivers/offsite/driver.js'
import type { Operation, OperationResult, Operations } from './operations.js'

/** Days after which the scheduled run also checks the repository, and also drills a restore. */
export const CHECK_EVERY_DAYS = 7
export const DRILL_EVERY_DAYS = 30

export type ProgressEvent =
  | { operation: Operation; state: 'running'; stage: string; fraction: number | null; bytes_done: number; bytes_total: number }
  | { operation: Operation; state: 'done' | 'failed'; error: string | null }

/**
 * One off-site operation at a time in the daemon, whether asked through the API or due on the
 * schedule: restic would wait on its own repository lock anyway, and two runs would only compete
 * for the link. Progress reaches listeners at most twice a second, plus every start and end.
 */
export function createRunner(ops: Operations, emit: (e: ProgressEvent) => void, now: () => number) {
  let current: { operation: Operation; done: Promise<unknown> } | null = null
  let lastEmit = 0

  const progress = (operation: Operation, p: OffsiteProgress | { stage: string }) => {
    const full = 'fraction' in p
    const at = now()
    if (full && p.fraction > 0 && p.fraction < 1 && at - lastEmit < 500) return
    lastEmit = at
    emit(
      full
        ? { operation, state: 'running', stage: p.operation, fraction: p.fraction, bytes_done: p.bytes_done, bytes_total: p.bytes_total }
        : { operation, state: 'running', stage: p.stage, fraction: null, bytes_done: 0, bytes_total: 0 },
    )
  }

  const perform = async (operation: Operation): Promise<OperationResult> => {
    const r = await ops[operation]()
    emit({ operation, state: r.ok ? 'done' : 'failed', error: r.error })
    return r
  }

  return {
    progress,
    busy: () => current?.operation ?? null,
    /** Starts an operation in the background; false when one is already under way (it is not restarted). */
    start(operation: Operation): boolean {
      if (current) return false
      const done = perform(operation).finally(() => (current = null))
      current = { operation, done }
      return true
    },
    /** The scheduled run, then a check and a drill when theirs are due. */
    async scheduled(last: { check: string | null; drill: string | null }) {
      if (current) await current.done.catch(() => {})
      const due = (at: string | null, days: number) => !at || now() - Date.parse(at) >= days * 86_400_000 - 3_600_000
      const sequence = (async () => {
        const run = await perform('run')
        if (!run.ok) return
        if (due(last.check, CHECK_EVERY_DAYS)) await perform('check')
        if (due(last.drill, DRILL_EVERY_DAYS)) await perform('drill')
      })()
      current = { operation: 'run', done: sequence }
      try {
        await sequence
      } finally {
        current = null
      }
    },
    /** Settles when the operation under way (if any) ends. */
    idle: () => current?.done.catch(() => {}) ?? Promise.resolve(),
  }
}
