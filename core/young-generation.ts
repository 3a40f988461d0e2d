import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'

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

/** Called by the daemon before it builds the app; tests and embedders leave V8 alone. */
export function armYoungGenerationHold(): void {
  if (state === 'off') state = 'armed'
}

/** Cheap (one heap statistics call): the plugin loader calls it between plugins. */
export function youngGenerationCheckpoint(): void {
  if (state !== 'armed') return
  const newSpace = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')
  if (!newSpace || newSpace.space_size < HOLD_AT) return
  setFlagsFromString('--semi-space-growth-factor=1')
  state = 'held'
}

/** After listen: V8's own growth again. */
export function releaseYoungGeneration(): void {
  if (state === 'held') setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_FACTOR}`)
  state = 'off'
}
