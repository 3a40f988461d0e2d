/**
 * Start and idle memory only, quicker than the whole perf table:
 * `npm run bench -- start`, or after a build `node dist/scripts/bench/start.js [runs]`.
 * Restarts the daemon on one data folder `runs` times (default 7) and prints wall ms and CPU ms to the
 * first 200 of /api/v1/health (CPU is the steady figure on a shared machine), then the daemon's idle RSS
 * 2 s after start with what it is made of (V8 heap, external, /proc smaps_rollup anon vs file-backed), again
 * 12 s after start (once V8's memory reducer has run), and the bare Fastify server's RSS sampled the same
 * way, 2 s and 12 s after its start. The 12 s figures are the idle ones: at 2 s the daemon is still in its
 * start-up housekeeping (the storage probe at 0.3 s).
 * The daemon runs with the environment `npm start` sets (START_ENV, e.g. glibc's MALLOC_TRIM_THRESHOLD_);
 * bare Fastify with the bench's own.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { median, ROOT, rssMb, START_ENV, startBareSqlite, startDaemon, startScript } from './harness.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Anonymous (heap, stacks, malloc) vs file-backed (code of node and the shared libraries) resident MB. */
function rollup(pid: number): Record<string, number> {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0)
  const mb = (k: number) => Math.round(k / 102.4) / 10
  return { anonMb: mb(kb('Anonymous')), fileMb: mb(kb('Rss') - kb('Anonymous')) }
}

/** Resident MB per mapped shared library (the native addons and libvips show here), largest first. */
function libraries(pid: number): [string, number][] {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8')
  const sizes = new Map<string, number>()
  let current = ''
  for (const line of text.split('\n')) {
    const map = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s+(.*)$/.exec(line)
    if (map) current = map[1] ?? ''
    else if (line.startsWith('Rss:') && current.includes('.so')) {
      const name = current.slice(current.lastIndexOf('/') + 1)
      sizes.set(name, (sizes.get(name) ?? 0) + Number(/(\d+)/.exec(line)?.[1] ?? 0))
    }
  }
  return [...sizes]
    .filter(([, k]) => k >= 512)
    .sort((a, b) => b[1] - a[1])
    .map(([n, k]) => [n, Math.round(k / 102.4) / 10])
}

export async function benchStart(runs = 7): Promise<Record<string, number | string>> {
  const first = await startDaemon()
  await first.stop()
  const wall: number[] = []
  const cpu: number[] = []
  for (let i = 0; i < runs; i++) {
    const d = await startDaemon({ HEARTH_DATA_DIR: first.dataDir })
    wall.push(d.startupMs)
    cpu.push(d.startupCpuMs)
    await d.stop()
  }
  const daemon = await startDaemon({ HEARTH_DATA_DIR: first.dataDir })
  await sleep(2000)
  const rss = await rssMb(daemon.pid)
  const parts = rollup(daemon.pid)
  const libs = libraries(daemon.pid)
  await sleep(10_000)
  const rssLater = await rssMb(daemon.pid)
  const partsLater = rollup(daemon.pid)
  await daemon.stop()
  const bare = await startScript(join(ROOT, 'dist/scripts/bench/bare-server.js'), ['{"data":{"id":"x"}}'])
  const withSqlite = await startBareSqlite('{"data":{"id":"x"}}')
  await sleep(2000)
  const bareRss = await rssMb(bare.pid)
  const bareParts = rollup(bare.pid)
  await sleep(10_000)
  const bareRssLater = await rssMb(bare.pid)
  const barePartsLater = rollup(bare.pid)
  const sqliteRssLater = await rssMb(withSqlite.pid)
  bare.stop()
  withSqlite.stop()
  return {
    'restart -> /health 200 wall ms, median': Math.round(median(wall)),
    'restart CPU ms, median': median(cpu),
    'wall ms, all runs': wall.map(Math.round).join(' '),
    'CPU ms, all runs': cpu.join(' '),
    'idle RSS MB (2 s after start)': rss,
    'idle anonymous / file-backed MB': `${parts.anonMb} / ${parts.fileMb}`,
    'bare Fastify RSS MB': bareRss,
    'bare anonymous / file-backed MB': `${bareParts.anonMb} / ${bareParts.fileMb}`,
    'RSS 2 s vs bare 2 s': Math.round((rss / bareRss) * 100) / 100,
    'idle RSS MB 12 s after start': rssLater,
    'bare Fastify RSS MB 12 s after start': bareRssLater,
    'RSS 12 s vs bare 12 s': Math.round((rssLater / bareRssLater) * 100) / 100,
    'private (anonymous) 12 s vs bare 12 s (aim <= 1.3)': Math.round((partsLater.anonMb / barePartsLater.anonMb) * 100) / 100,
    'anonymous / file-backed MB 12 s: daemon; bare': `${partsLater.anonMb} / ${partsLater.fileMb}; ${barePartsLater.anonMb} / ${barePartsLater.fileMb}`,
    'informative: bare Fastify + SQLite RSS MB 12 s; daemon vs it': `${sqliteRssLater}; ${Math.round((rssLater / sqliteRssLater) * 100) / 100}`,
    'daemon environment (npm start)': Object.entries(START_ENV)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
    'shared libraries >= 0.5 MB resident': libs.map(([n, m]) => `${n} ${m}`).join(', '),
  }
}

if (process.argv[1]?.endsWith('/bench/start.js')) console.table(await benchStart(Number(process.argv[2] ?? 7)))
