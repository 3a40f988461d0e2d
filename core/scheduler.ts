import cron from 'node-cron'
import type { FastifyBaseLogger } from 'fastify'
import { type CronFields, isCron, numericFields } from '../lib/cron.js'
import { nextMatch } from '../lib/cron-next.js'

export interface ScheduledJob {
  readonly name: string
  /** Runs the job now (skipped when a run is already in progress); resolves when it ends. */
  runNow(): Promise<void>
  nextRun(): Date | null
  stop(): void
}

export interface ScheduleOptions {
  /**
   * Scheduled runs closer than this to the previous start are skipped: the floor holds even when a
   * daylight-saving change squeezes two wall-clock times together. `runNow` is not held back.
   */
  minIntervalMs?: number
}

export interface Scheduler {
  /** Schedules `task` on a cron expression (seconds field allowed). Runs never overlap. */
  schedule(name: string, expression: string, task: () => Promise<void> | void, options?: ScheduleOptions): ScheduledJob
  /** The job scheduled under `name`, if any. */
  get(name: string): ScheduledJob | undefined
  /** Stops every job; called when the daemon closes. */
  stopAll(): Promise<void>
}

export function createScheduler(log: FastifyBaseLogger): Scheduler {
  const jobs = new Map<string, { job: ScheduledJob; running: Promise<void> | null }>()

  return {
    schedule(name, expression, task, options = {}) {
      if (!isCron(expression)) throw new Error(`job ${name}: invalid cron expression "${expression}"`)
      if (jobs.has(name)) throw new Error(`job ${name} is already scheduled`)
      const slot: { job: ScheduledJob; running: Promise<void> | null } = { job: null as unknown as ScheduledJob, running: null }
      const run = (): Promise<void> => {
        if (slot.running) return slot.running
        slot.running = (async () => {
          try {
            await task()
          } catch (err) {
            log.error({ err, job: name }, 'scheduled job failed')
          } finally {
            slot.running = null
          }
        })()
        return slot.running
      }
      let lastStart = -Infinity
      const due = (): Promise<void> => {
        const now = Date.now()
        if (options.minIntervalMs && now - lastStart < options.minIntervalMs) return Promise.resolve()
        lastStart = now
        return run()
      }
      const fields = numericFields(expression)
      const handle = fields ? localTimer(fields, due) : cron.schedule(expression, () => due(), { name, noOverlap: true })
      slot.job = {
        name,
        runNow: run,
        nextRun: () => handle.getNextRun(),
        stop: () => {
          handle.destroy()
          jobs.delete(name)
        },
      }
      jobs.set(name, slot)
      return slot.job
    },
    get: (name) => jobs.get(name)?.job,
    async stopAll() {
      const running = [...jobs.values()].map((s) => s.running).filter(Boolean)
      for (const { job } of [...jobs.values()]) job.stop()
      await Promise.allSettled(running)
    },
  }
}

/** setTimeout's longest delay; a later run is reached by re-arming. */
const MAX_DELAY = 2 ** 31 - 1

/**
 * A numeric expression's runs on a timer (lib/cron-next.ts says why not node-cron's). Like node-cron's
 * task: armed on the next match, the run is started when the timer fires (the caller skips it if the
 * previous one is still going), then the match after that one is armed.
 */
function localTimer(fields: CronFields, run: () => Promise<void>): { getNextRun(): Date | null; destroy(): void } {
  let next: Date | null = nextMatch(fields, new Date())
  let timer: NodeJS.Timeout | undefined
  const arm = () => {
    if (!next) return
    const wait = next.getTime() - Date.now()
    timer = setTimeout(fire, Math.min(Math.max(wait, 0), MAX_DELAY))
  }
  const fire = () => {
    if (!next) return
    const now = Date.now()
    if (now < next.getTime()) return arm()
    void run()
    next = nextMatch(fields, new Date(Math.max(now, next.getTime())))
    arm()
  }
  arm()
  return {
    getNextRun: () => next,
    destroy: () => {
      next = null
      clearTimeout(timer)
    },
  }
}
