import { readFileSync } from 'node:fs'

/** Past this growth the watched daemon is killed, so the machine survives an unbounded answer. */
const KILL_AT = 2 * 1024 * 1024 * 1024

/** A field of /proc/<pid>/status in bytes (0 once the process is gone). */
export const procBytes = (name: string, pid: number): number =>
  Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024

export interface Watched {
  /** The peak memory growth over the resting size when the watch started, in bytes. */
  peakGrowth: number
  slowestHealth: number
  healthFailures: number
}

/**
 * Watches a daemon process while one request is under way: its memory sampled every 20 ms (`peak` is
 * VmHWM, the kernel's high-water mark, when a peak between two samples must count too) and `/health`
 * probed every 25 ms. `stop()` ends the watch and says what it saw.
 */
export function watchDaemon(pid: number, healthUrl: string, peak: 'VmRSS' | 'VmHWM' = 'VmRSS'): { stop(): Promise<Watched> } {
  const resting = procBytes('VmRSS', pid)
  let highest = resting
  let done = false
  let slowestHealth = 0
  let healthFailures = 0
  const sampler = setInterval(() => {
    try {
      highest = Math.max(highest, procBytes(peak, pid))
      if (procBytes('VmRSS', pid) - resting > KILL_AT) process.kill(pid, 'SIGKILL')
    } catch {
      // the process is gone
    }
  }, 20)
  const probes = (async () => {
    while (!done) {
      const started = performance.now()
      try {
        const res = await fetch(healthUrl, { signal: AbortSignal.timeout(5000) })
        await res.arrayBuffer()
        if (res.status !== 200) healthFailures++
      } catch {
        healthFailures++
      }
      slowestHealth = Math.max(slowestHealth, performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })()
  return {
    async stop() {
      done = true
      await probes
      clearInterval(sampler)
      return { peakGrowth: highest - resting, slowestHealth, healthFailures }
    },
  }
}
