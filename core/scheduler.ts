import cron from 'node-cron'
import type { FastifyBaseLogger } from 'fastify'

export interface ScheduledJob {
  readonly name: string
  /** Runs the job now (skipped when a run is already in progress); resolves when it ends. */
  runNow(): Promise<void>
  nextRun(): Date | null
  stop(): void
}

export interface Scheduler {
  /** Schedules `task` on a cron expression (seconds field allowed). Runs never overlap. */
  schedule(name: string, expression: string, task: () => Promise<void> | void): ScheduledJob
  /** Stops every job; called when the daemon closes. */
  stopAll(): Promise<void>
}

export function createScheduler(log: FastifyBaseLogger): Scheduler {
  const jobs = new Map<string, { job: ScheduledJob; running: Promise<void> | null }>()

  return {
    schedule(name, expression, task) {
      if (!cron.validate(expression)) throw new Error(`job ${name}: invalid cron expression "${expression}"`)
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
      const handle = cron.schedule(expression, () => run(), { name, noOverlap: true })
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
    async stopAll() {
      const running = [...jobs.values()].map((s) => s.running).filter(Boolean)
      for (const { job } of [...jobs.values()]) job.stop()
      await Promise.allSettled(running)
    },
  }
}
