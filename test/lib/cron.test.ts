import t from 'tap'
import { MIN_SCHEDULE_MINUTES, minIntervalMinutes, scheduleProblem } from '../../lib/cron.js'

t.test('the shortest gap between two runs, within a day and across midnight', async (t) => {
  const cases: Array<[string, number]> = [
    ['* * * * *', 1],
    ['*/5 * * * *', 5],
    ['0,10 * * * *', 10],
    ['0,50 * * * *', 10], // :50, then the next hour's :00
    ['0 * * * *', 60],
    ['*/15 * * * *', 15],
    ['0 0,23 * * *', 60], // 23:00, then midnight
    ['0 9-17 * * 1-5', 60],
    ['0,5 9 1 * *', 5],
    ['@hourly', 60],
    // A day or more apart: 1440.
    ['0 3 * * *', 1440],
    ['@daily', 1440],
    ['30 23 * * 1', 1440],
    ['0 23 * * 1,2', 1440], // Monday 23:00, Tuesday 23:00
    ['0 0 1 * *', 1440],
    ['59 23 31 12 *', 1440],
  ]
  for (const [expression, expected] of cases) t.equal(minIntervalMinutes(expression), expected, expression)
})

t.test('schedules: node-cron syntax, no seconds field, at least 15 minutes apart', async (t) => {
  t.equal(MIN_SCHEDULE_MINUTES, 15)
  const verdicts: Array<[string, ReturnType<typeof scheduleProblem>]> = [
    ['* * * * * *', 'interval'],
    ['0 0 * * * *', 'interval'], // a seconds field, even one that runs hourly
    ['*/5 * * * *', 'interval'],
    ['0,10 * * * *', 'interval'],
    ['0,50 * * * *', 'interval'],
    ['*/14 * * * *', 'interval'],
    ['0 * * * *', null],
    ['*/15 * * * *', null],
    ['0,15,30,45 * * * *', null],
    ['30 3 * * *', null],
    ['@weekly', null],
    ['often', 'format'],
    ['61 * * * *', 'format'],
    ['', 'format'],
  ]
  for (const [expression, expected] of verdicts) t.equal(scheduleProblem(expression, MIN_SCHEDULE_MINUTES), expected, `"${expression}"`)
})
