import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { operatorChose } from './v8-flags.js'

/**
 * Keeps V8's young generation from its last doubling while the daemon starts (issue 11, idle memory).
 *
 * The start allocates ~20 MB that live as long as the daemon (modules, routes, schemas), and V8 grows the
 * new space each time more than its capacity has survived a scavenge: 1 → 2 → 4 MB semi-spaces early in
 * the start, then 8 MB near its end. That last growth is what the idle daemon keeps resident (16 MB
 * committed, both halves touched by the start's scavenges; bare Fastify ends at 4 MB semi-spaces), and
 * V8 never shrinks it at idle. Holding the growth factor at 1 once the semi-space is 4 MB costs one or
 * two more scavenges of ~1.5 ms; holding it from the first MB (tried) cost 15 ms of start CPU. After
 * listen the factor is back to V8's default 2: under load the new space grows to its usual maximum.
 */
const HOLD_AT = 8 * 1024 * 1024 // committed new space (both semi-spaces) of 4 MB semi-spaces
const DEFAULT_FACTOR = 2 // V8's --semi-space-growth-factor

let state: 'off' | 'armed' | 'held' = 'off'

/** V8's new space (both semi-spaces): committed (`space_size`) and resident (`physical_space_size`) bytes. */
function newSpace(): { space_size: number; physical_space_size: number } {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space') ?? { space_size: 0, physical_space_size: 0 }
}

/** Called by the daemon before it builds the app; tests and embedders leave V8 alone. */
export function armYoungGenerationHold(): void {
  if (state === 'off') state = 'armed'
}

/** Cheap (one heap statistics call): the plugin loader calls it between plugins. */
export function youngGenerationCheckpoint(): void {
  if (state !== 'armed') return
  if (newSpace().space_size < HOLD_AT) return
  setFlagsFromString('--semi-space-growth-factor=1')
  state = 'held'
}

/** After listen: V8's own growth again. */
export function releaseYoungGeneration(): void {
  if (state === 'held') setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_FACTOR}`)
  state = 'off'
}

/**
 * One full GC a second after listen, so that V8's memory reducer runs at all. The start does only
 * scavenges, and the memory reducer is armed by a mark-compact: without one the idle daemon keeps its
 * start-time heap for good (the new space's 8 MB and the old space's slack). With it, V8 shrinks them
 * itself ~8 s later: RSS 91 → 79 MB 12 s after start, for ~90 ms of CPU spent once in those seconds (this GC
 * and the reducer's own), none of it before the first `/health` answer (docs/performance.md).
 * `gc` is reached through a new context: the flag set now does not put `gc` on this one's global.
 *
 * Until the reducer has shrunk the new space (or for 30 s at most), V8 also runs with
 * `--optimize-for-size`: the reducer starts its GC only when the allocation rate looks low or memory is
 * to be favoured, and on a busy machine (another process using the CPUs) its idleness test failed for
 * minutes, leaving the start's 8 MB of new space resident (RSS 72 instead of 62.7 MB 20 s after start,
 * with two CPU-bound processes beside it). The flag is read when the reducer's timer fires.
 */
export function collectOnceAfterStart(delayMs = 1000): void {
  setTimeout(() => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'async' }) => void
    gc({ type: 'major', execution: 'async' })
    favourMemoryUntilReduced()
  }, delayMs).unref()
}

const REDUCED = 1024 * 1024 // new space (both semi-spaces) once the reducer has shrunk it
const FAVOUR_AT_MOST_MS = 30_000

function favourMemoryUntilReduced(): void {
  // An operator who set it (or its opposite) keeps it.
  if (operatorChose('optimize-for-size')) return
  setFlagsFromString('--optimize-for-size')
  const since = Date.now()
  const poll = setInterval(() => {
    if (newSpace().physical_space_size < REDUCED || Date.now() - since > FAVOUR_AT_MOST_MS) {
      setFlagsFromString('--no-optimize-for-size')
      clearInterval(poll)
    }
  }, 1000).unref()
}
