import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { unzipSync } from 'fflate'
import t, { type Test } from 'tap'
import { call, freePort } from '../cli-process.js'

const ROOT = new URL('../../../', import.meta.url).pathname

function start(env: Record<string, string>) {
  // `npm start` as a user runs it; detached so the whole process group can be signalled.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  // 'close', not 'exit': npm can die of the group's SIGTERM before the daemon it started has
  // drained and written its last lines; the pipes close only when both have gone.
  const exited = new Promise<number | null>((r) => child.on('close', (code, signal) => r(code ?? (signal === 'SIGTERM' ? 0 : null))))
  return { child, exited, output: () => output }
}

function descendants(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  return children.flatMap((child) => [child, ...descendants(child)])
}

const argv = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')

/** `npm start` on a fresh data folder and a free loopback port; killed (whole group) and removed after the test. */
async function startFresh(t: Test, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-proc-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const proc = start({ HEARTH_DATA_DIR: dataDir, HEARTH_PORT: String(port), HEARTH_HOST: '127.0.0.1', HEARTH_DNS_PORT: '0', ...env })
  t.teardown(() => {
    try {
      process.kill(-(proc.child.pid as number), 'SIGKILL')
    } catch {}
  })
  return { proc, dataDir, port, base: `http://127.0.0.1:${port}/api/v1` }
}

/** Creates the owner once the daemon answers (it may still be starting) and returns an access token. */
async function ownerToken(base: string): Promise<string> {
  let setup: Response | undefined
  for (let i = 0; i < 1200 && !setup; i++) {
    setup = await fetch(`${base}/auth/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'o@example.test', password: 'long enough pw' }),
    }).catch(() => new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)))
  }
  return ((await setup?.json()) as { data: { accessToken: string } }).data.accessToken
}

t.test('npm start serves /health on its port and drains on SIGTERM', async (t) => {
  const dnsPort = await freePort()
  const { proc, dataDir, port } = await startFresh(t, { HEARTH_DNS_PORT: String(dnsPort), HEARTH_DNS_HOST: '127.0.0.1' })
  let health: { status: number; body: { data: { components: Record<string, unknown> } } } | undefined
  for (let i = 0; i < 1200 && !health; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`)
      health = { status: res.status, body: (await res.json()) as { data: { components: Record<string, unknown> } } }
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  t.ok(health, `daemon answered: ${proc.output().slice(-500)}`)
  t.equal(health?.status, 200)
  t.ok(health?.body.data.components.database, 'health reports components')
  // glibc reads it at exec: only the launcher can set it (test/core/malloc-env.test.ts, docs/performance.md).
  const daemon = descendants(proc.child.pid as number).find((pid) => argv(pid)[1] === 'dist/bundle/hearthd.mjs')
  t.ok(daemon, 'npm start runs node dist/bundle/hearthd.mjs')
  t.ok(
    readFileSync(`/proc/${daemon}/environ`, 'latin1').split('\0').includes('MALLOC_TRIM_THRESHOLD_=131072'),
    'with the malloc trim threshold set',
  )
  process.kill(-(proc.child.pid as number), 'SIGTERM')
  t.equal(await proc.exited, 0, 'clean exit on SIGTERM (npm forwards the signal)')
  t.match(proc.output(), /shutting down/)
  t.notMatch(proc.output(), /"level":50/, 'no error logged while draining')
  const wal = join(dataDir, 'hearth.db-wal')
  // npm can exit a moment before the daemon it forwarded SIGTERM to has closed the database: wait for it, boundedly.
  const checkpointed = () => !existsSync(wal) || statSync(wal).size === 0
  for (let i = 0; i < 300 && !checkpointed(); i++) await new Promise((r) => setTimeout(r, 100))
  t.ok(checkpointed(), 'WAL checkpointed: the database was closed cleanly')
})

t.test('npm start: the packages the bundle loads on first use answer as the unbundled code does', async (t) => {
  // Packages the daemon uses on some requests only: Ajv (validation), Luxon (zones), fflate and busboy (zip export, multipart import),
  // yaml and json-schema-resolver (the document), light-my-request (the docs UI), prom-client (/metrics, imported on the first scrape).
  // The other tests build the app from dist/ unbundled: this is where the shipped bundle's stand-ins are used.
  const { base } = await startFresh(t)
  const token = await ownerToken(base)
  const json = (method: string, path: string, body?: unknown) => call(base, method, path, token, body)

  t.same(
    await json('POST', '/notes', { title: 12, content: 'x' }),
    {
      status: 400,
      json: { error: { code: 'VALIDATION_ERROR', message: 'title must be string', details: { field: 'title', constraint: 'type' } } },
    },
    'a body is validated',
  )
  t.equal((await json('GET', '/notes?limit=many')).status, 400, 'and a query string')
  t.equal((await json('POST', '/notes', { title: 'Kept', content: 'exported and imported' })).status, 201)

  // Weekly at 09:00 in New York from 2 March 2026: daylight time from the second one on.
  const series = await json('POST', '/events', {
    title: 'Lesson',
    start_at: '2026-03-02T14:00:00.000Z',
    timezone: 'America/New_York',
    recurrence: { freq: 'WEEKLY', count: 2 },
  })
  t.equal(series.status, 201)
  const window = (await json('GET', '/events?from=2026-03-01&to=2026-03-31')).json.data as Array<{ start_at: string }>
  t.same(
    window.map((e) => e.start_at),
    ['2026-03-02T14:00:00.000Z', '2026-03-09T13:00:00.000Z'],
    'occurrences follow the zone across DST',
  )
  t.match(await json('POST', '/events', { title: 'Nowhere', start_at: '2026-03-02T14:00:00Z', timezone: 'Mars/Olympus' }), {
    status: 400,
    json: { error: { details: { field: 'timezone', constraint: 'zone' } } },
  })

  const zip = await fetch(`${base}/notes/export`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(zip.headers.get('content-type'), 'application/zip')
  const archive = Buffer.from(await zip.arrayBuffer())
  t.same(Object.keys(unzipSync(new Uint8Array(archive))).length, 1, 'the export is a zip of the note')
  const form = new FormData()
  form.append('file', new Blob([archive]), 'hearth-notes.zip')
  const imported = await fetch(`${base}/notes/import`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })
  t.equal(imported.status, 200)
  t.match(await imported.json(), { data: { imported: 1, failed: [] } }, 'and imports again')

  const yaml = await fetch(`${base}/docs/yaml`)
  t.equal(yaml.status, 200)
  t.match(await yaml.text(), /^openapi: 3\./, 'the document as YAML')
  t.match(await (await fetch(`${base}/docs/json`)).json(), { openapi: /^3\./ })
  const ui = await fetch(`${base}/docs`)
  t.equal(ui.status, 200)
  t.match(await ui.text(), /swagger/i, 'the docs UI')
  const metrics = await fetch(`http://${new URL(base).host}/metrics`)
  t.equal(metrics.status, 200)
  t.match(await metrics.text(), /^hearth_http_requests_total\{.*route="\/api\/v1\/notes".*\} \d+$/m, 'metrics count the requests')
})

t.test('SIGTERM while a write is in flight: the write completes and is on disk', async (t) => {
  const { proc, dataDir, base } = await startFresh(t, { HEARTH_PLUGINS_DIR: new URL('../third-party/', import.meta.url).pathname })
  const token = await ownerToken(base)
  const write = fetch(`${base}/hello/greetings?delay_ms=500`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ text: 'written while stopping' }),
  })
  await new Promise((r) => setTimeout(r, 150))
  process.kill(-(proc.child.pid as number), 'SIGTERM')
  const res = await write
  t.equal(res.status, 201, 'the in-flight request was answered')
  t.equal(await proc.exited, 0)
  const { default: Database } = await import('better-sqlite3')
  const db = new Database(join(dataDir, 'hearth.db'), { readonly: true })
  t.same(db.prepare('SELECT text FROM hello_greetings').all(), [{ text: 'written while stopping' }], 'the write is on disk')
  db.close()
})

t.test('kill -9 under concurrent writes: every acknowledged create is on disk', async (t) => {
  const { proc, dataDir, base } = await startFresh(t)
  const token = await ownerToken(base)
  const acknowledged: string[] = []
  let killed = false
  // 16 writers (group commit batches them), each writing until the process is gone.
  const writer = async (w: number) => {
    for (let i = 0; !killed; i++) {
      try {
        const res = await fetch(`${base}/notes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ content: `writer ${w} note ${i}` }),
        })
        if (res.status !== 201) return
        acknowledged.push(((await res.json()) as { data: { id: string } }).data.id)
      } catch {
        return // connection reset: the process died with this request unanswered
      }
    }
  }
  const writers = Array.from({ length: 16 }, (_, w) => writer(w))
  while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 5))
  process.kill(-(proc.child.pid as number), 'SIGKILL')
  killed = true
  await Promise.all(writers)
  await proc.exited
  const { default: Database } = await import('better-sqlite3')
  const db = new Database(join(dataDir, 'hearth.db'))
  const stored = new Set((db.prepare('SELECT id FROM notes').pluck().all() as string[]).filter(Boolean))
  db.close()
  const missing = acknowledged.filter((id) => !stored.has(id))
  t.ok(acknowledged.length >= 300, `${acknowledged.length} creates acknowledged before the kill`)
  t.same(missing, [], 'no acknowledged create is lost')
})

t.test('a bad configuration value stops the start with one clear line', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-proc-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const fresh = join(dataDir, 'never-created')
  const proc = start({ HEARTH_DATA_DIR: fresh, HEARTH_PORT: '99999' })
  const code = await proc.exited
  t.not(code, 0)
  t.match(proc.output(), /hearth: configuration error: HEARTH_PORT=99999 is invalid/)
  t.notOk(existsSync(fresh), 'nothing is half-started: no data folder, no hearth.env written')
})
