import { setFlagsFromString } from 'node:v8'

/**
 * V8's optimizing compiler (TurboFan) and baseline compiler (Sparkplug) held off while the daemon starts
 * (issue 11, idle memory). The start runs its code once or a few times (module bodies, route
 * registration, schema compilation, migrations checks) and then never again, yet loops in it get hot
 * enough for both tiers: Sparkplug fills the code space with baseline code the daemon keeps (private
 * memory, ~1.2 MB), and TurboFan's first compile pages in its own machine code from the node binary
 * (~3.4 MB of clean text pages, which then count in the idle daemon's RSS although no request ever
 * needed them). Released once the daemon listens: from then on V8 tiers up hot request paths as usual
 * (a by-id load gets the same CPU per request, docs/performance.md). Both flags are read by V8 each time
 * it considers a function for a tier, so turning them back on takes effect at once.
 *
 * Left alone when the operator chose these compilers' flags (NODE_OPTIONS or node's arguments).
 */
const CHOSEN = /--(?:no-)?(?:turbofan|opt|sparkplug|jitless|max-opt)\b/

let held = false

/** Called by the process entry (core/main.ts) before it imports the daemon; tests and embedders leave V8 alone. */
export function holdCompilersDuringStart(): void {
  if (held || CHOSEN.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '))) return
  setFlagsFromString('--no-turbofan')
  setFlagsFromString('--no-sparkplug')
  held = true
}

/** After listen: V8's own tiering again. */
export function releaseCompilers(): void {
  if (!held) return
  setFlagsFromString('--turbofan')
  setFlagsFromString('--sparkplug')
  held = false
}
