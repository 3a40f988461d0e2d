import { setFlagsFromString } from 'node:v8'
import { operatorChose } from './v8-flags.js'

/**
 * V8's optimizing compiler (TurboFan) and baseline compiler (Sparkplug) held off while the daemon starts,
 * and TurboFan until the daemon does some work (issue 11, idle memory).
 *
 * The start runs its code once or a few times (module bodies, route registration, schema compilation),
 * yet loops in it get hot enough for both tiers: Sparkplug fills the code space with baseline code the
 * daemon keeps (private memory, ~0.6 MB), and TurboFan's first compile pages in its own machine code from
 * the node binary (~3.4 MB of clean text pages, which then count in the idle daemon's RSS although no
 * request needed them). Sparkplug is back once the daemon listens. TurboFan is back once the daemon has
 * used a quarter of a CPU within a second (a burst of requests, a DNS flood, an import) or 5% of one over
 * ten seconds (a steady trickle: 150 requests a second ran 1.5x the CPU per request without TurboFan).
 * Released at listen instead, it compiled the first function the start had made hot as soon as an idle
 * timer or a health check called it again (node's async-hooks check, seconds after start), and the 3.4 MB
 * were back for nothing. V8 reads both flags each time it considers a function for a tier, so a release
 * takes effect at once (docs/performance.md).
 *
 * Left alone when the operator chose these compilers' flags (NODE_OPTIONS or node's arguments).
 */
const BURST_CPU_MS = 250 // within the last second, all of the process's threads
const STEADY_CPU_MS = 500 // within the last ten seconds
const POLL_MS = 1000

let held = false

/** Called by the process entry (core/main.ts) before it imports the daemon; tests and embedders leave V8 alone. */
export function holdCompilersDuringStart(): void {
  if (held || operatorChose('turbofan', 'opt', 'sparkplug', 'jitless', 'max-opt', 'lite-mode')) return
  setFlagsFromString('--no-turbofan')
  setFlagsFromString('--no-sparkplug')
  held = true
}

/** After listen: Sparkplug now, TurboFan as soon as the daemon does some work. */
export function releaseCompilers(): void {
  if (!held) return
  held = false
  setFlagsFromString('--sparkplug')
  const lastTen: number[] = []
  let last = process.cpuUsage()
  const poll = setInterval(() => {
    const used = process.cpuUsage(last)
    last = process.cpuUsage()
    const ms = (used.user + used.system) / 1000
    lastTen.push(ms)
    if (lastTen.length > 10) lastTen.shift()
    if (ms < BURST_CPU_MS && lastTen.reduce((a, b) => a + b, 0) < STEADY_CPU_MS) return
    setFlagsFromString('--turbofan')
    clearInterval(poll)
  }, POLL_MS).unref()
}
