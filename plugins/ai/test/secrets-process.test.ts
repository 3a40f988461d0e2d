import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startProviderStub } from './provider-stub.js'

/**
 * The key never reaches the logs nor the database in clear: a real daemon
 * (dist/core/main.js) at log level trace, driven over HTTP through settings, the test action with
 * a good and a wrong key (the provider echoes the wrong one back), a reindex, searches with the
 * provider failing; then every line it printed and every byte of its data folder are searched.
 */

const GOOD = 'sk-proc-good-7d1e5b2c9a084f6e8b3d2c1a0f9e8d7c'
const WRONG = 'sk-proc-wrong-1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d'

t.test('keys stay out of the log output and the data folder', async (t) => {
  const stub = await startProviderStub(t)
  stub.expectedKey = GOOD
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-ai-proc-'))
  const main = new URL('../../../core/main.js', import.meta.url).pathname
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH,
      HEARTH_DATA_DIR: dataDir,
      HEARTH_PORT: '0',
      HEARTH_HOST: '127.0.0.1',
      HEARTH_DNS_PORT: '0',
      HEARTH_LOG_LEVEL: 'trace',
      HEARTH_TIER: 'pro',
      HEARTH_CADDY_ADMIN: 'http://127.0.0.1:1',
      HEARTH_PLUGINS_DIR: '',
      HEARTH_AI_COMPATIBLE_URL: stub.url,
      HEARTH_AI_INDEX_DELAY_MS: '10',
      HEARTH_AI_RETRY_DELAY_MS: '20',
      HEARTH_AI_MAX_ATTEMPTS: '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  t.teardown(async () => {
    if (child.exitCode === null) child.kill('SIGKILL')
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  })

  let base = ''
  // Up to two minutes: a start takes a second or two, but far longer on a CI machine whose cores are all taken.
  for (let i = 0; i < 1200 && !base && child.exitCode === null; i++) {
    base = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? ''
    if (!base) await new Promise((r) => setTimeout(r, 100))
  }
  if (!base) return t.fail(`the daemon did not start: ${output.slice(-2000)}`)
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    const text = await res.text()
    return { status: res.status, text, json: text ? JSON.parse(text) : null }
  }
  const setup = await call('POST', '/auth/setup', { email: 'o@example.test', password: 'correct horse battery' })
  const token = setup.json.data.accessToken as string
  await call('POST', '/notes', { title: 'Groceries', content: 'milk eggs bread' }, token)

  const settings = { provider: 'openai-compatible', model: 'chat', embedding_model: 'bow', api_key: GOOD }
  const put = await call('PUT', '/ai/settings', settings, token)
  t.equal(put.status, 200)
  t.notOk(put.text.includes(GOOD))
  t.equal((await call('POST', '/ai/settings/test', undefined, token)).json.data.ok, true)
  t.equal((await call('POST', '/ai/reindex', undefined, token)).status, 202)
  for (let i = 0; i < 200; i++) {
    const s = (await call('GET', '/ai/index', undefined, token)).json.data
    if (s.status === 'ready') break
    await new Promise((r) => setTimeout(r, 25))
  }
  t.equal((await call('GET', '/search/semantic?q=bread', undefined, token)).json.data[0].record.title, 'Groceries')

  // A wrong key: the provider echoes it in its 401; the test answer, the fallback note and the retry logs must not.
  await call('PUT', '/ai/settings', { ...settings, api_key: WRONG }, token)
  const failed = await call('POST', '/ai/settings/test', undefined, token)
  t.equal(failed.json.data.ok, false)
  t.notOk(failed.text.includes(WRONG))
  const fallback = await call('GET', '/search/semantic?q=bread', undefined, token)
  t.equal(fallback.status, 200)
  t.equal(fallback.json.meta.fallback, true)
  t.notOk(fallback.text.includes(WRONG))
  await call(
    'PATCH',
    `/notes/${(await call('GET', '/notes', undefined, token)).json.data[0].id}`,
    { content: 'milk eggs bread butter' },
    token,
  )
  for (let i = 0; i < 200 && !output.includes('changes dropped after retries'); i++) await new Promise((r) => setTimeout(r, 25))
  t.match(output, /provider failed, will retry/, 'the retries were logged')
  t.match(output, /\[redacted\]/, 'with the key redacted')

  child.kill('SIGTERM')
  await exited
  t.ok(output.length > 2000, `the daemon logged (${output.length} characters at trace)`)
  t.notOk(output.includes(GOOD), 'the good key is not in the logs')
  t.notOk(output.includes(WRONG), 'the wrong key is not in the logs')
  const files = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
  t.ok(
    files.some((f) => f.name.endsWith('.db')),
    'the database file is there',
  )
  for (const f of files) {
    const bytes = readFileSync(join(f.parentPath, f.name)).toString('latin1')
    t.notOk(bytes.includes(GOOD) || bytes.includes(WRONG), `no key in clear in ${f.name}`)
  }
})
