import { readFileSync, writeFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'

/**
 * Loaded into a daemon process a test spawns (`node --import <this file>`): the event loop's delay
 * is measured (perf_hooks, 10 ms resolution) and its maximum since the last reset is written to
 * HEARTH_TEST_LOOP_FILE every 50 ms; the test starts a fresh measurement by writing "reset" there.
 */
const file = process.env.HEARTH_TEST_LOOP_FILE
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  const timer = setInterval(() => {
    try {
      if (readFileSync(file, 'utf8') === 'reset') histogram.reset()
      writeFileSync(file, JSON.stringify({ maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 }))
    } catch {
      // the folder is gone: the test is over
    }
  }, 50)
  timer.unref()
}

/** What the daemon's loop measured since the last reset (0 before any sample). */
export function loopDelay(path: string): { maxMs: number; p99Ms: number } {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { maxMs: number; p99Ms: number }
  } catch {
    return { maxMs: 0, p99Ms: 0 }
  }
}

/** Starts a fresh measurement and waits until the daemon has taken it up. */
export async function resetLoopDelay(path: string): Promise<void> {
  writeFileSync(path, 'reset')
  for (let i = 0; i < 100 && readFileSync(path, 'utf8') === 'reset'; i++) await new Promise((r) => setTimeout(r, 20))
}
