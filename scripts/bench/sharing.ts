import { pathToFileURL } from 'node:url'
import { databasePath, openDatabase } from '../../core/db/sqlite.js'
import { compileCheck } from '../../core/validation.js'
import { createRecordsService } from '../../plugins/records/service.js'
import { json, ownerWithKey, startDaemon } from './harness.js'

/**
 * Sharing bench: a member who reads 5 calendars other members share with them, 500 weekly series
 * each, asks for a ranged event list of four weeks (GET /events?from=&to=, 10,000 occurrences,
 * the first page of 20), one request at a time over HTTP; beside another member asking the same
 * of their own 5 calendars of the same volume. p50 and p99 of sequential requests.
 * `HEARTH_BENCH_PROFILE=<dir>` has the daemon write a CPU profile there.
 */
const CALENDARS = 5
const SERIES = 500
const RUNS = 200
// Four whole weeks: every weekly series has exactly four occurrences (10,000 in all, the most a list expands).
const WINDOW = 'from=2027-02-01&to=2027-02-28'

const quantile = (samples: number[], q: number) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return Math.round((sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number) * 10) / 10
}

async function member(url: string, ownerToken: string, email: string): Promise<{ id: string; token: string }> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${ownerToken}` }
  const invite = await json<{ token: string }>(
    await fetch(`${url}/api/v1/admin/invitations`, { method: 'POST', headers, body: JSON.stringify({ email, role: 'user' }) }),
  )
  const body = JSON.stringify({ token: invite.token, password: 'bench member password' })
  const made = await json<{ accessToken: string; user: { id: string } }>(
    await fetch(`${url}/api/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
  )
  return { id: made.user.id, token: made.accessToken }
}

/** `calendars` calendars of SERIES weekly series each, seeded through the service. */
function seed(service: ReturnType<typeof createRecordsService>, userId: string, calendars: string[]) {
  const start = Date.parse('2026-06-01T07:00:00Z')
  for (const calendar of calendars) {
    const bodies = Array.from({ length: SERIES }, (_, i) => ({
      title: `${calendar} series ${i}`,
      description: 'A weekly thing the family does, with a few words of description to make the row realistic.',
      location: 'Home',
      start_at: new Date(start + (i % 7) * 86_400_000 + (i % 48) * 900_000).toISOString(),
      calendar_name: calendar,
      timezone: 'Europe/Paris',
      recurrence: { freq: 'WEEKLY' },
      reminders: [{ type: 'notification', minutes_before: 15 }],
    }))
    const { failed } = service.importMany(userId, 'events', bodies, { emit: false })
    if (failed.length) throw new Error(`seeding failed: ${failed[0]?.error.message}`)
  }
}

async function timedList(url: string, token: string, query: string): Promise<{ p50: number; p99: number; total: number }> {
  const headers = { authorization: `Bearer ${token}` }
  const first = (await (await fetch(`${url}/api/v1/events?${query}`, { headers })).json()) as { meta?: { total: number }; error?: unknown }
  if (!first.meta) throw new Error(`the list failed: ${JSON.stringify(first)}`)
  const samples: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now()
    const res = await fetch(`${url}/api/v1/events?${query}`, { headers })
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`the list answered ${res.status}`)
    samples.push(performance.now() - started)
  }
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), total: first.meta.total }
}

export async function benchSharing(): Promise<Record<string, number | string>> {
  // HEARTH_BENCH_PROFILE=<dir>: the daemon writes a CPU profile there when it stops (node --cpu-prof).
  const profile = process.env.HEARTH_BENCH_PROFILE
  const daemon = await startDaemon({}, profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])
  const out: Record<string, number | string> = {}
  try {
    const { token: ownerToken } = await ownerWithKey(daemon.url, 'agent')
    const reader = await member(daemon.url, ownerToken, 'reader@example.test')
    const alone = await member(daemon.url, ownerToken, 'alone@example.test')
    const sharers = []
    for (let i = 0; i < CALENDARS; i++) sharers.push(await member(daemon.url, ownerToken, `sharer${i}@example.test`))

    const db = openDatabase(databasePath(daemon.dataDir))
    const service = createRecordsService({ validator: compileCheck, db, events: { emit: () => undefined as never }, now: Date.now })
    const started = performance.now()
    sharers.forEach((s, i) => seed(service, s.id, [`family-${i}`]))
    seed(
      service,
      alone.id,
      Array.from({ length: CALENDARS }, (_, i) => `own-${i}`),
    )
    out[`seed ${2 * CALENDARS * SERIES} series s`] = Math.round((performance.now() - started) / 100) / 10
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.close()
    for (const [i, s] of sharers.entries()) {
      await json(
        await fetch(`${daemon.url}/api/v1/shares`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` },
          body: JSON.stringify({ kind: 'calendar', name: `family-${i}`, with: reader.id, access: 'read' }),
        }),
      )
    }

    const shared = await timedList(daemon.url, reader.token, WINDOW)
    const own = await timedList(daemon.url, alone.token, WINDOW)
    Object.assign(out, {
      [`shared: 5 calendars x ${SERIES} weekly, 4 weeks (${shared.total} occurrences) p50 ms`]: shared.p50,
      'shared p99 ms (aim < 50)': shared.p99,
      [`own: 5 calendars x ${SERIES} weekly, 4 weeks (${own.total} occurrences) p50 ms`]: own.p50,
      'own p99 ms': own.p99,
      'load average (1 min) after': Math.round((await import('node:os')).loadavg()[0] * 100) / 100,
    })
  } finally {
    await daemon.stop()
  }
  return out
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchSharing())
}
