import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { TestContext } from '../helper.js'
import { formatLine } from '../../core/logging/pretty.js'
import { redactUrl } from '../../core/logging/redact.js'
import { freePort } from '../../plugins/dns/test/support.js'

const MAIN = new URL('../../core/main.js', import.meta.url).pathname

interface Daemon {
  base: string
  dataDir: string
  output: () => string
  stop: () => Promise<void>
}

/** Starts `node dist/core/main.js` (optionally under `script`, which gives it a real terminal) and waits for /health. */
async function startDaemon(t: TestContext, env: Record<string, string>, onTty = false): Promise<Daemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-log-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const childEnv = {
    ...process.env,
    HEARTH_DATA_DIR: dataDir,
    HEARTH_PORT: String(port),
    HEARTH_HOST: '127.0.0.1',
    HEARTH_DNS_PORT: '0',
    HEARTH_DNS_HOST: '127.0.0.1',
    HEARTH_LOG_FORMAT: 'auto',
    ...env,
  }
  const child: ChildProcess = onTty
    ? spawn('script', ['-qfec', `exec ${process.execPath} ${MAIN}`, '/dev/null'], { env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [MAIN], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (d) => (output += d))
  child.stderr?.on('data', (d) => (output += d))
  let exited = false
  const closed = new Promise<void>((r) => child.on('close', () => r()))
  child.on('exit', () => (exited = true))
  // Under `script` the daemon is script's child in its own session: signal it by its own PID.
  let daemonPid = child.pid as number
  // `script` relays the daemon's last lines and exits after it: only the teardown signals it too.
  const kill = (signal: NodeJS.Signals, pids = [daemonPid, child.pid as number]) => {
    for (const pid of pids) {
      try {
        process.kill(pid, signal)
      } catch {}
    }
  }
  t.teardown(() => kill('SIGKILL'))
  const base = `http://127.0.0.1:${port}/api/v1`
  // Up to two minutes: a start takes a second or two, but far longer on a CI machine whose cores are all taken.
  for (let i = 0; i < 1200 && !exited; i++) {
    const ok = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) break
    await new Promise((r) => setTimeout(r, 100))
  }
  if (onTty) daemonPid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)[0])
  return {
    base,
    dataDir,
    output: () => output,
    stop: async () => {
      kill('SIGTERM', [daemonPid])
      await closed
    },
  }
}

/** Creates the owner; their access token, their id and the daemon's system token (from its hearth.env). */
async function credentials(d: Daemon, password: string) {
  const setup = await fetch(`${d.base}/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@example.test', password }),
  })
  const { accessToken, user } = ((await setup.json()) as { data: { accessToken: string; user: { id: string } } }).data
  const systemToken = /HEARTH_SYSTEM_TOKEN=(\S+)/.exec(readFileSync(join(d.dataDir, 'hearth.env'), 'utf8'))?.[1] as string
  return { status: setup.status, jwt: accessToken, userId: user?.id, systemToken }
}

t.test('JSON lines off a terminal: a request id on every request line, no credential anywhere', async (t) => {
  const d = await startDaemon(t, { HEARTH_LOG_LEVEL: 'debug' })
  const password = 'correct horse battery staple'
  const { status, jwt, systemToken } = await credentials(d, password)
  t.equal(status, 201)
  const created = await fetch(`${d.base}/admin/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
    body: JSON.stringify({ scope: 'system', label: 'log test' }),
  })
  t.equal(created.status, 201)
  const apiKey = ((await created.json()) as { data: { key: string } }).data.key
  const wrong = 'clk_not_a_real_key_but_secret_looking_0123456789'

  const calls: Array<[string, RequestInit]> = [
    [`${d.base}/admin/api-keys`, { headers: { authorization: `Bearer ${jwt}`, 'x-request-id': 'trace-abc.123' } }],
    [`${d.base}/admin/api-keys`, { headers: { authorization: `Bearer ${apiKey}` } }],
    [`${d.base}/admin/api-keys`, { headers: { authorization: `Bearer ${systemToken}` } }],
    [`${d.base}/realtime?token=${jwt}`, {}],
    [`${d.base}/health?access_token=${apiKey}&api_key=${systemToken}&x=1`, {}],
    [`${d.base}/feeds/${apiKey}/calendar.ics`, { headers: { cookie: `session=${jwt}` } }],
    [`${d.base}/admin/api-keys`, { headers: { authorization: `Bearer ${wrong}` } }],
    [
      `${d.base}/auth/login`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.test', password }) },
    ],
  ]
  const statuses = []
  for (const [url, init] of calls) statuses.push((await fetch(url, init)).status)
  t.same(statuses.slice(0, 3), [200, 200, 200], 'the credentials were real and accepted')
  t.equal(statuses[6], 401)
  await d.stop()

  const out = d.output()
  const lines = out.split('\n').filter(Boolean)
  t.ok(lines.length > calls.length, `logged ${lines.length} lines`)
  const entries = lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>
    } catch {
      t.fail(`not a JSON line: ${line}`)
      return {}
    }
  })
  const requestLines = entries.filter((e) => e.req || e.res)
  t.ok(requestLines.length >= calls.length, 'a line when each request is answered')
  t.ok(
    requestLines.every((e) => typeof e.reqId === 'string' && (e.reqId as string).length > 0),
    'every request line carries its request id',
  )
  const traced = requestLines.filter((e) => e.reqId === 'trace-abc.123')
  t.equal(traced.length, 1, 'a caller-given X-Request-Id is the logged id, on the one line of its request')
  t.ok(
    entries.some((e) => (e.req as { url?: string } | undefined)?.url === '/api/v1/realtime?token=[redacted]'),
    'the URL stays readable with the token scrubbed',
  )
  for (const [name, secret] of Object.entries({ jwt, apiKey, systemToken, wrong, password })) {
    t.notOk(out.includes(secret), `${name} never appears in the log`)
  }
  t.notOk(/authorization|cookie/i.test(out), 'no credential header is logged')
})

t.test('readable lines on a terminal (stdout is a TTY under `script`)', async (t) => {
  const d = await startDaemon(t, { HEARTH_LOG_LEVEL: 'debug' }, true)
  const res = await fetch(`${d.base}/health`, { headers: { 'x-request-id': 'tty-req-1' } })
  t.equal(res.status, 200)
  await d.stop()
  const out = d.output().replace(/\u001b\[\d+m/g, '')
  t.match(out, /\d\d:\d\d:\d\d\.\d{3} DEBUG \[tty-req-1\] GET \/api\/v1\/health request completed → 200 [\d.]+ ms/)
  t.notMatch(out, /"level":/, 'no JSON on a terminal')
})

t.test('at the default level a success writes no line, a refusal one at info', async (t) => {
  const d = await startDaemon(t, {})
  const ok = await fetch(`${d.base}/health`, { headers: { 'x-request-id': 'quiet-ok' } })
  const refused = await fetch(`${d.base}/notes`, { headers: { 'x-request-id': 'loud-401' } })
  t.same([ok.status, refused.status], [200, 401])
  await d.stop()
  const entries = d
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { reqId?: string; level: number; msg: string; res?: { statusCode: number } })
  t.same(
    entries.filter((e) => e.reqId === 'quiet-ok'),
    [],
    'an answered request writes nothing at info',
  )
  const lines = entries.filter((e) => e.reqId === 'loud-401')
  t.equal(lines.length, 1, 'one line for the refused request')
  t.match(lines[0], { level: 30, msg: 'request completed', res: { statusCode: 401 } })
})

t.test('HEARTH_LOG_FORMAT=pretty forces readable lines into a pipe; json forces JSON', async (t) => {
  const pretty = await startDaemon(t, { HEARTH_LOG_FORMAT: 'pretty' })
  await pretty.stop()
  t.match(pretty.output(), /^\d\d:\d\d:\d\d\.\d{3} INFO {2}Server listening at/m)
  t.notMatch(pretty.output(), /\u001b\[/, 'no colours off a terminal')
})

t.test('a bad secret setting stops the start without repeating its value', async (t) => {
  const secret = 'too-short-but-still-a-secret'
  const d = await startDaemon(t, { HEARTH_JWT_SECRET: secret, HEARTH_LOG_LEVEL: 'loud' })
  await d.stop()
  t.match(d.output(), /hearth: configuration error: HEARTH_JWT_SECRET=\[redacted\] is invalid/)
  t.match(d.output(), /HEARTH_LOG_LEVEL=loud is invalid/, 'other values are still shown')
  t.notOk(d.output().includes(secret))
})

t.test('the scrubber and the formatter on their own', async (t) => {
  t.equal(redactUrl('/a?token=abc&b=2'), '/a?token=[redacted]&b=2')
  t.equal(redactUrl('/a?b=1&refresh_token=x&API-KEY=y&monkey=z'), '/a?b=1&refresh_token=[redacted]&API-KEY=[redacted]&monkey=z')
  t.equal(redactUrl('/feeds/clk_abc-DEF_1/x.ics'), '/feeds/[redacted]/x.ics')
  t.equal(redactUrl('/x/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-_x'), '/x/[redacted]')
  const long = `/?${'a'.repeat(200_000)}=${'b'.repeat(200_000)}&${'_'.repeat(100_000)}`
  const started = process.hrtime.bigint()
  redactUrl(long)
  t.ok(process.hrtime.bigint() - started < 2_000_000_000n, 'linear on a hostile URL')
  t.equal(formatLine('not json'), 'not json')
  t.match(
    formatLine(JSON.stringify({ level: 50, time: 0, msg: 'boom', plugin: 'dns', err: { message: 'x', stack: 'Error: x\n    at y' } })),
    /^00:00:00\.000 ERROR boom plugin=dns\nError: x/,
  )
})

t.test('at trace, an upload logs no credential, and a malformed multipart body is a 400', async (t) => {
  const d = await startDaemon(t, { HEARTH_LOG_LEVEL: 'trace', HEARTH_LOG_FORMAT: 'json' })
  const { jwt, userId, systemToken } = await credentials(d, 'correct horse battery staple')
  const form = new FormData()
  form.append('file', new Blob(['# A note\n\nfrom a file\n']), 'note.md')
  const uploaded = await fetch(`${d.base}/notes/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${systemToken}`, 'x-svc-user-id': userId },
    body: form,
  })
  t.equal(uploaded.status, 200, 'the upload is imported')
  const malformed = [
    ['multipart/form-data', 'no boundary at all'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\n\r\ncut short'],
  ]
  for (const [type, body] of malformed) {
    const res = await fetch(`${d.base}/notes/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'content-type': type as string },
      body,
    })
    const answer = (await res.json()) as { error: { code: string } }
    t.equal(res.status, 400, `${type}: a 400, not a 500`)
    t.equal(answer.error.code, 'VALIDATION_ERROR')
  }
  await d.stop()
  const out = d.output()
  t.match(out, /Providing options to busboy/, 'the multipart trace line is there')
  t.notOk(out.includes(jwt), 'the JWT never appears in the log')
  t.notOk(out.includes(systemToken), 'the system token never appears in the log')
})
