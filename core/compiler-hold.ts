import { setFlagsFromString } from 'node:v8'

/**
 * V8's optimizing compiler (TurboFan) and baseline compiler (Sparkplug) held off while the daemon starts,
 * and TurboFan until the daemon is busy (issue 11, idle memory).
 *
 * The start runs its code once or a few times (module bodies, route registration, schema compilation),
 * yet loops in it get hot enough for both tiers: Sparkplug fills the code space with baseline code the
 * daemon keeps (private memory, ~0.6 MB), and TurboFan's first compile pages in its own machine code from
 * the node binary (~3.4 MB of clean text pages, which then count in the idle daemon's RSS although no
 * request needed them). Sparkplug is back once the daemon listens. TurboFan is back once the daemon has
 * used a quarter of a CPU within a second (a load of requests, a DNS flood, an import): released at
 * listen instead, it compiled the first function the start had made hot as soon as an idle timer or a
 * health check called it again (node's async-hooks check, seconds after start), and the 3.4 MB were back
 * for nothing. V8 reads both flags each time it considers a function for a tier, so a release takes
 * effect at once; a by-id load gets the same CPU per request (docs/performance.md).
 *
 * Left alone when the operator chose these compilers' flags (NODE_OPTIONS or node's arguments).
 */
const CHOSEN = /--(?:no-)?(?:turbofan|opt|sparkplug|jitless|max-opt)\b/
const BUSY_CPU_MS = 250 // per second, all of the process's threads
const POLL_MS = 1000

let held = false

/** Called by the process entry (core/main.ts) before it imports the daemon; tests and embedders leave V8 alone. */
export function holdCompilersDuringStart(): void {
  if (held || CHOSEN.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '))) return
  setFlagsFromString('--no-turbofan')
  setFlagsFromString('--no-sparkplug')
  held = true
}

/** After listen: Sparkplug now, TurboFan as soon as the daemon is busy. */
export function releaseCompilers(): void {
  if (!held) return
  held = false
  setFlagsFromString('--sparkplug')
  let last = process.cpuUsage()
  const poll = setInterval(() => {
    const now = process.cpuUsage(last)
    last = process.cpuUsage()
    if ((now.user + now.system) / 1000 < BUSY_CPU_MS) return
    setFlagsFromString('--turbofan')
    clearInterval(poll)
  }, POLL_MS).unref()
}
