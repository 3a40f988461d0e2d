/**
 * Where a request's time goes: the daemon under `node --cpu-prof`, 100,000
 * notes seeded, wrk loading one route (64 connections, 10 s), then the
 * profile's samples attributed to the layers of a request. `byid` reads
 * 4,000 different notes in turn, `create` posts ~1 KiB notes (16 connections).
 *
 *   node dist/scripts/bench/profile.js byid|list|create [seconds]
 *
 * Each sample goes to the frame nearest the leaf that belongs to a layer
 * (a SQLite call inside the records service counts as SQLite); samples in
 * none of our layers go to Node/Fastify by their file.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ownerWithKey, ROOT, startDaemon } from './harness.js'
import { shoot } from './load.js'
import { createsLua, pathsLua } from './perf-lua.js'
import { seedNotes } from './perf-notes.js'
import { databasePath } from '../../core/db/sqlite.js'

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
}

/** Layer of one frame, or null when it is not one of ours. Order matters: the first match wins. */
const LAYERS: Array<[string, (f: Node['callFrame']) => boolean]> = [
  // A statement's native time shows as self time of the JS function calling it.
  [
    'SQLite (statements, incl. row objects)',
    (f) => /better-sqlite3|records\/engine\/(store|list|query-cache)|auth\/(users|api-keys)/.test(f.url),
  ],
  [
    'socket writes/reads (syscalls)',
    (f) => f.url === '' && /^(writev|writeBuffer|writeUtf8String|writeLatin1String|read|onStreamRead)$/.test(f.functionName),
  ],
  ['JSON.parse of stored columns', (f) => f.functionName === 'parse' && f.url === ''],
  [
    'serialization (fast-json-stringify)',
    (f) => /fast-json-stringify|serializ/i.test(f.url) || (/^anonymous$|serialize/i.test(f.functionName) && /fast-json/.test(f.url)),
  ],
  ['auth (token → caller)', (f) => /core\/auth\/(authenticate|api-keys|hash|users|tokens)/.test(f.url) || /core\/auth\/hash/.test(f.url)],
  ['guards + rate limit', (f) => /core\/(auth\/guards|rate-limit)/.test(f.url)],
  ['metrics hook (prom-client)', (f) => /prom-client|core\/metrics/.test(f.url)],
  ['logging (pino)', (f) => /pino/.test(f.url)],
  ['validation (ajv)', (f) => /ajv|core\/validation/.test(f.url)],
  ['envelope + hooks (core)', (f) => /core\/(route-pipeline|app|envelope)/.test(f.url)],
  ['records plugin (service, store, list)', (f) => /plugins\/records/.test(f.url)],
  ['fastify (routing, reply, hooks)', (f) => /node_modules\/(fastify|find-my-way|light-my-request|@fastify|avvio)/.test(f.url)],
  ['node http + net', (f) => /^node:(_http|http|net|internal\/(http|streams|stream_base|timers))/.test(f.url) || /^node:/.test(f.url)],
]

export function attribute(profile: Profile): Array<[string, number]> {
  const parent = new Map<number, number>()
  const byId = new Map<number, Node>()
  for (const n of profile.nodes) {
    byId.set(n.id, n)
    for (const c of n.children ?? []) parent.set(c, n.id)
  }
  const SPECIAL: Record<string, string> = {
    '(garbage collector)': 'garbage collection',
    '(idle)': 'idle',
    '(program)': 'native/other (program)',
  }
  const generic = (layer: string | undefined) => !layer || layer.startsWith('fastify') || layer.startsWith('node')
  const layerOf = new Map<number, string>()
  const resolve = (leaf: number): string => {
    const known = layerOf.get(leaf)
    if (known) return known
    const leafFrame = (byId.get(leaf) as Node).callFrame
    let layer: string | undefined = SPECIAL[leafFrame.functionName]
    if (!layer) {
      // Nearest frame of ours from the leaf up; else the leaf's own layer (Node, Fastify) or its file.
      for (let id: number | undefined = leaf; id !== undefined && !layer; id = parent.get(id)) {
        const own = LAYERS.find(([, test]) => test((byId.get(id as number) as Node).callFrame))?.[0]
        if (!generic(own)) layer = own
      }
      layer ??= LAYERS.find(([, test]) => test(leafFrame))?.[0] ?? 'other JS'
    }
    layerOf.set(leaf, layer)
    return layer
  }
  const totals = new Map<string, number>()
  profile.samples.forEach((id, i) => {
    const layer = resolve(id)
    totals.set(layer, (totals.get(layer) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  return [...totals].sort((a, b) => b[1] - a[1])
}

/** The heaviest functions by self time, for the details the layers hide. */
export function topFunctions(profile: Profile, n = 25): Array<[string, number]> {
  const self = new Map<string, number>()
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  profile.samples.forEach((id, i) => {
    const f = (byId.get(id) as Node).callFrame
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/dist\//, '')}:${f.lineNumber + 1}`
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n)
}

async function main() {
  const which = process.argv[2] ?? 'byid'
  const seconds = Number(process.argv[3] ?? 10)
  const dir = mkdtempSync(join(tmpdir(), 'hearth-prof-'))
  // The unbundled build: its frames keep their file names, which is how samples find their layer.
  const daemon = await startDaemon(
    { HEARTH_RATE_LIMIT: '1000000000' },
    ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    join(ROOT, 'dist/core/main.js'),
  )
  try {
    const { key, userId } = await ownerWithKey(daemon.url, 'agent')
    const headers = { authorization: `Bearer ${key}` }
    const { ids } = seedNotes(databasePath(daemon.dataDir), userId, 100_000)
    const api = `${daemon.url}/api/v1`
    const url = which === 'list' ? `${api}/notes?limit=20` : which === 'create' ? `${api}/notes` : `${daemon.url}/`
    const opts =
      which === 'create'
        ? { headers: { ...headers, 'content-type': 'application/json' }, lua: createsLua(256) }
        : which === 'byid'
          ? { headers, lua: pathsLua(ids.map((id) => `/api/v1/notes/${id}`)) }
          : { headers }
    await shoot(url, { connections: 64, seconds: 2, ...opts })
    const shot = await shoot(url, { connections: which === 'create' ? 16 : 64, seconds, ...opts })
    console.log(`${which}: ${shot.rps} req/s, p99 ${shot.p99} ms, errors ${shot.errors}`)
  } finally {
    await daemon.stop()
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
  if (!file) throw new Error('no profile written')
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile
  const layers = attribute(profile)
  const busy = layers.filter(([name]) => name !== 'idle').reduce((sum, [, us]) => sum + us, 0)
  console.log(`\nprofile: ${join(dir, file)}\nbusy time by layer (share of non-idle samples):`)
  for (const [name, us] of layers) if (name !== 'idle') console.log(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${name}`)
  console.log('\nheaviest functions by self time:')
  for (const [name, us] of topFunctions(profile)) console.log(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${name}`)
}

if (process.argv[1]?.endsWith('profile.js')) await main()
