import cron from 'node-cron'
import t from 'tap'
import { nextMatch } from '../../lib/cron-next.js'
import { numericFields } from '../../lib/cron.js'
import { createScheduler } from '../../core/scheduler.js'

const EXPRESSIONS = [
  '17 * * * *',
  '*/5 * * * * *',
  '0 3 * * *',
  '30 2 * * 1-5',
  '0 9 1,15 * *',
  '0 0 29 2 *',
  '15 10 * jan,jul sun',
  '@weekly',
  '0 */6 * * 7',
  '45 23 31 * *',
]

/** node-cron's own next runs from now beside ours, the process TZ set to zones with DST and odd offsets. */
t.test('the next runs are node-cron’s, in UTC and local zones', async (t) => {
  const saved = process.env.TZ
  t.teardown(() => {
    if (saved === undefined) delete process.env.TZ
    else process.env.TZ = saved
  })
  for (const zone of ['UTC', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe']) {
    process.env.TZ = zone
    for (const expression of EXPRESSIONS) {
      const fields = numericFields(expression)
      if (!fields) {
        t.fail(`${expression} should be numeric`)
        continue
      }
      // node-cron caches its formatter of the process zone: give it the zone by name instead.
      const task = cron.createTask(expression, () => undefined, { timezone: zone })
      const theirs = task.getNextRuns(4).map((d) => d.toISOString())
      const ours: string[] = []
      let from = new Date()
      for (let i = 0; i < 4; i++) ours.push((from = nextMatch(fields, from)).toISOString())
      t.same(ours, theirs, `${zone} ${expression}`)
    }
  }
})

t.test('a local time skipped by DST does not run that day; repeated hours run once', async (t) => {
  const saved = process.env.TZ
  t.teardown(() => {
    if (saved === undefined) delete process.env.TZ
    else process.env.TZ = saved
  })
  process.env.TZ = 'Europe/Paris'
  const gap = numericFields('30 2 * * *')!
  // 29 March 2026: 02:00 CET jumps to 03:00 CEST, so 02:30 does not exist.
  t.equal(nextMatch(gap, new Date('2026-03-28T12:00:00Z')).toISOString(), '2026-03-30T00:30:00.000Z')
  const hourly = numericFields('0 * * * *')!
  // 25 October 2026: 03:00 CEST falls back to 02:00 CET; 02:00 runs once, at the instant node-cron picks.
  const runs: string[] = []
  let from = new Date('2026-10-24T23:30:00Z')
  for (let i = 0; i < 4; i++) runs.push((from = nextMatch(hourly, from)).toISOString())
  t.same(runs, ['2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z', '2026-10-25T03:00:00.000Z', '2026-10-25T04:00:00.000Z'])
})

t.test('expressions with L, W or # are left to node-cron', async (t) => {
  t.equal(numericFields('0 0 L * *'), null)
  t.equal(numericFields('0 0 15W * *'), null)
  t.equal(numericFields('0 0 * * 1#2'), null)
  t.ok(numericFields('0 0 1 * *'))
  const log = { error: () => undefined } as never
  const scheduler = createScheduler(log)
  const job = scheduler.schedule('last-day', '0 0 L * *', () => undefined)
  t.ok(job.nextRun(), 'scheduled through node-cron')
  await scheduler.stopAll()
})

t.test('a job on a numeric expression runs at its times and not after stop', async (t) => {
  const scheduler = createScheduler({ error: () => undefined } as never)
  let runs = 0
  const job = scheduler.schedule('every-second', '* * * * * *', () => {
    runs++
  })
  const next = job.nextRun()
  t.ok(next && next.getTime() > Date.now() && next.getTime() <= Date.now() + 1000, 'next run within a second')
  await new Promise((r) => setTimeout(r, 2300))
  t.ok(runs >= 2, `ran ${runs} times in 2.3 s`)
  await scheduler.stopAll()
  const after = runs
  await new Promise((r) => setTimeout(r, 1200))
  t.equal(runs, after, 'no run after stop')
})
