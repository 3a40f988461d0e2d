/**
 * Before/after on a shared machine: two builds of the daemon running side by
 * side, each with 100,000 notes and an agent key, loaded in alternation
 * (A B A B, 7 rounds of 2 s per figure), so both see the same disturbances.
 *
 *   node dist/scripts/bench/ab.js <entry A> [entry B = what npm start runs] [--only=byid,list,create] [--rounds=7] [--no-restart] [--bare]
 *
 * e.g. A = an older commit's checkout built with tsc, `dist/core/main.js`. Beside req/s it
 * prints each daemon's CPU (user + system, /proc) per request answered: steadier than req/s when the
 * machine is shared. `--only` keeps some figures, `--no-restart` skips the start-time rounds, `--bare`
 * adds bare Fastify answering B's by-id JSON to each by-id round (A B bare), as `npm run bench -- perf` does.
 */
import { join } from 'node:path'
import { ownerWithKey, DAEMON_ENTRY, type Daemon, median, ROOT, startDaemon, startScript, withCpu } from './harness.js'
import { type Shot, shoot } from './load.js'
import { seedNotes } from './perf-notes.js'
import { databasePath } from '../../core/db/sqlite.js'

const flags = process.argv.slice(2).filter((a) => a.startsWith('--'))
const flag = (name: string) => flags.find((f) => f.startsWith(`--${name}=`))?.split('=')[1]
const ROUNDS = Number(flag('rounds') ?? 7)
const ONLY = flag('only')?.split(',')
const BARE = flags.includes('--bare')
const env = { HEARTH_RATE_LIMIT: '1000000000' }

async function prepare(entry: string) {
  const daemon = await startDaemon(env, [], entry)
  const { key, userId } = await ownerWithKey(daemon.url, 'agent')
  const { ids } = seedNotes(databasePath(daemon.dataDir), userId, 100_000)
  return { daemon, headers: { authorization: `Bearer ${key}` }, api: `${daemon.url}/api/v1`, id: ids[50] as string }
}

async function main() {
  const entries = process.argv.slice(2).filter((a) => !a.startsWith('--'))
  const [a, b] = [entries[0] as string, entries[1] ?? DAEMON_ENTRY]
  console.log(`A = ${a}\nB = ${b}\nHEARTH_RATE_LIMIT=${env.HEARTH_RATE_LIMIT} set for both daemons`)
  // Start time: restarts of a data folder each, alternating, median of 5.
  const starts: Record<'a' | 'b', number[]> = { a: [], b: [] }
  const cpu: Record<'a' | 'b', number[]> = { a: [], b: [] }
  const restarts = !flags.includes('--no-restart')
  if (restarts) {
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
  }
  const A = await prepare(a)
  const B = await prepare(b)
  let bare: Awaited<ReturnType<typeof startScript>> | undefined
  try {
    const post = { method: 'POST' as const, body: JSON.stringify({ content: '# Bench\nA note written under load.', tags: ['bench'] }) }
    // The daemon's CPU per request answered, beside what the load generator saw (rounds of 2 s).
    const measuredBy = (pid: number, shot: () => Promise<Shot>) => withCpu(pid, 2, shot)
    const measured = (s: typeof A, shot: () => Promise<Shot>) => measuredBy(s.daemon.pid, shot)
    // Bare Fastify answering the exact JSON of B's by-id, in the by-id rounds only.
    if (BARE) {
      const sample = await (await fetch(`${B.api}/notes/${B.id}`, { headers: B.headers })).text()
      bare = await startScript(join(ROOT, 'dist/scripts/bench/bare-server.js'), [sample])
    }
    const shootBare = (url: string) => measuredBy(Number(bare?.pid), () => shoot(`${url}/bare`, { connections: 64, seconds: 2 }))
    const all = {
      byid: [
        'GET /notes/:id req/s (64 conn)',
        (s: typeof A) => measured(s, () => shoot(`${s.api}/notes/${s.id}`, { connections: 64, seconds: 2, headers: s.headers })),
      ],
      list: [
        'GET /notes?limit=20 req/s (64 conn)',
        (s: typeof A) => measured(s, () => shoot(`${s.api}/notes?limit=20`, { connections: 64, seconds: 2, headers: s.headers })),
      ],
      create: [
        'POST /notes creates/s (16 conn)',
        (s: typeof A) =>
          measured(s, () =>
            shoot(`${s.api}/notes`, {
              connections: 16,
              seconds: 2,
              headers: { ...s.headers, 'content-type': 'application/json' },
              ...post,
            }),
          ),
      ],
    } as const
    const figures = Object.entries(all)
      .filter(([key]) => !ONLY || ONLY.includes(key))
      .map(([, figure]) => figure)
    const out: Record<string, string | number> = {}
    for (const [name, run] of figures) {
      await run(A)
      await run(B)
      const ratios: number[] = []
      const rs: Record<'a' | 'b' | 'bare', Array<Shot & { cpuUs: number }>> = { a: [], b: [], bare: [] }
      const withBare = bare && name === all.byid[0] ? bare : undefined
      if (withBare) await shootBare(withBare.url)
      for (let r = 0; r < ROUNDS; r++) {
        const x = await run(A)
        const y = await run(B)
        rs.a.push(x)
        rs.b.push(y)
        ratios.push(y.rps / x.rps)
        if (withBare) rs.bare.push(await shootBare(withBare.url))
      }
      out[`${name} A (median)`] = median(rs.a.map((s) => s.rps))
      out[`${name} B (median)`] = median(rs.b.map((s) => s.rps))
      out[`${name} B/A (median of rounds)`] = Math.round(median(ratios) * 100) / 100
      const us = (side: 'a' | 'b') => Math.round(median(rs[side].map((s) => s.cpuUs)) * 10) / 10
      out[`${name} server CPU us per request A / B (median)`] = `${us('a')} / ${us('b')}`
      out[`${name} rounds B/A`] = ratios.map((r) => r.toFixed(2)).join(' ')
      if (withBare) {
        const vsBare = (side: 'a' | 'b') => median(rs[side].map((s, i) => s.rps / (rs.bare[i] as Shot).rps)).toFixed(2)
        out['bare Fastify req/s (median)'] = median(rs.bare.map((s) => s.rps))
        out['bare Fastify server CPU us per request (median)'] = Math.round(median(rs.bare.map((s) => s.cpuUs)) * 10) / 10
        out[`${name} vs bare Fastify A / B (median of rounds)`] = `${vsBare('a')} / ${vsBare('b')}`
      }
    }
    if (restarts) {
      out['restart -> /health 200 ms A (median of 5)'] = Math.round(median(starts.a))
      out['restart -> /health 200 ms B (median of 5)'] = Math.round(median(starts.b))
      out['restart B/A'] = Math.round((median(starts.b) / median(starts.a)) * 100) / 100
      out['restart CPU ms A / B (median of 5)'] = `${median(cpu.a)} / ${median(cpu.b)}`
    }
    console.table(out)
  } finally {
    bare?.stop()
    await A.daemon.stop()
    await B.daemon.stop()
  }
}

await main()
