/**
 * Before/after on a shared machine: two builds of the daemon running side by
 * side, each with 100,000 notes and an agent key, loaded in alternation
 * (A B A B, 7 rounds of 2 s per figure), so both see the same disturbances.
 *
 *   node dist/scripts/bench/ab.js <entry A> [entry B = what npm start runs]
 *
 * e.g. A = a checkout of the commit before issue 11 built with tsc, `dist/core/main.js`.
 */
import { ownerWithKey, DAEMON_ENTRY, type Daemon, startDaemon } from './harness.js'
import { type Shot, shoot } from './load.js'
import { seedNotes } from './perf.js'
import { databasePath } from '../../core/db/sqlite.js'

const ROUNDS = 7
const env = { HEARTH_RATE_LIMIT: '1000000000' }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

async function prepare(entry: string) {
  const daemon = await startDaemon(env, [], entry)
  const { key, userId } = await ownerWithKey(daemon.url, 'agent')
  const { ids } = seedNotes(databasePath(daemon.dataDir), userId, 100_000)
  return { daemon, headers: { authorization: `Bearer ${key}` }, api: `${daemon.url}/api/v1`, id: ids[50] as string }
}

async function main() {
  const [a, b] = [process.argv[2] as string, process.argv[3] ?? DAEMON_ENTRY]
  console.log(`A = ${a}\nB = ${b}\nHEARTH_RATE_LIMIT=${env.HEARTH_RATE_LIMIT} set for both daemons`)
  // Start time: restarts of a data folder each, alternating, median of 5.
  const starts: Record<'a' | 'b', number[]> = { a: [], b: [] }
  const cpu: Record<'a' | 'b', number[]> = { a: [], b: [] }
  const folders: Record<'a' | 'b', Daemon> = { a: await startDaemon(env, [], a), b: await startDaemon(env, [], b) }
  await folders.a.stop()
  await folders.b.stop()
  for (let i = 0; i < 5; i++) {
    for (const side of ['a', 'b'] as const) {
      const d = await startDaemon({ ...env, HEARTH_DATA_DIR: folders[side].dataDir }, [], side === 'a' ? a : b)
      starts[side].push(d.startupMs)
      cpu[side].push(d.startupCpuMs)
      await d.stop()
    }
  }
  const A = await prepare(a)
  const B = await prepare(b)
  try {
    const post = { method: 'POST' as const, body: JSON.stringify({ content: '# Bench\nA note written under load.', tags: ['bench'] }) }
    const figures = {
      'GET /notes/:id req/s (64 conn)': (s: typeof A) =>
        shoot(`${s.api}/notes/${s.id}`, { connections: 64, seconds: 2, headers: s.headers }),
      'GET /notes?limit=20 req/s (64 conn)': (s: typeof A) =>
        shoot(`${s.api}/notes?limit=20`, { connections: 64, seconds: 2, headers: s.headers }),
      'POST /notes creates/s (16 conn)': (s: typeof A) =>
        shoot(`${s.api}/notes`, { connections: 16, seconds: 2, headers: { ...s.headers, 'content-type': 'application/json' }, ...post }),
    }
    const out: Record<string, string | number> = {}
    for (const [name, run] of Object.entries(figures)) {
      await run(A)
      await run(B)
      const ratios: number[] = []
      const rs: Record<'a' | 'b', Shot[]> = { a: [], b: [] }
      for (let r = 0; r < ROUNDS; r++) {
        const x = await run(A)
        const y = await run(B)
        rs.a.push(x)
        rs.b.push(y)
        ratios.push(y.rps / x.rps)
      }
      out[`${name} A (median)`] = median(rs.a.map((s) => s.rps))
      out[`${name} B (median)`] = median(rs.b.map((s) => s.rps))
      out[`${name} B/A (median of rounds)`] = Math.round(median(ratios) * 100) / 100
    }
    out['restart -> /health 200 ms A (median of 5)'] = Math.round(median(starts.a))
    out['restart -> /health 200 ms B (median of 5)'] = Math.round(median(starts.b))
    out['restart B/A'] = Math.round((median(starts.b) / median(starts.a)) * 100) / 100
    out['restart CPU ms A / B (median of 5)'] = `${median(cpu.a)} / ${median(cpu.b)}`
    console.table(out)
  } finally {
    await A.daemon.stop()
    await B.daemon.stop()
  }
}

await main()
