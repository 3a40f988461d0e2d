import { type ChildProcess, spawn } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { cli, freePort, quietEnv, tempDir } from '../cli-process.js'
import type { TestContext } from '../helper.js'

interface Finding {
  check: string
  status: 'ok' | 'warn' | 'fail'
  message: string
  fix?: string
}

async function doctor(env: Record<string, string>, extra: string[] = []) {
  const r = await cli(['doctor', '--json', ...extra], env)
  const findings = JSON.parse(r.stdout) as Finding[]
  return { code: r.code, findings, get: (check: string) => findings.find((f) => f.check === check) }
}

/** Debian's Caddy with its admin API on `port` (the real one: doctor must reach it). */
async function startCaddy(t: TestContext, port: number): Promise<void> {
  const dir = tempDir(t, 'hearth-doctor-caddy-')
  writeFileSync(join(dir, 'c.json'), JSON.stringify({ admin: { listen: `127.0.0.1:${port}` } }))
  const child: ChildProcess = spawn('caddy', ['run', '--config', join(dir, 'c.json')], {
    env: { ...process.env, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') },
    stdio: 'ignore',
  })
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      }),
  )
  for (let i = 0; i < 1200; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/config/`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('caddy did not start')
}

async function portsEnv(t: Test) {
  const dataDir = join(tempDir(t), 'data')
  const [api, dns, http, https, admin] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()])
  const env = {
    ...quietEnv(dataDir),
    HEARTH_PORT: String(api),
    HEARTH_DNS_PORT: String(dns),
    HEARTH_PROXY_HTTP_PORT: String(http),
    HEARTH_PROXY_HTTPS_PORT: String(https),
    HEARTH_CADDY_ADMIN: `http://127.0.0.1:${admin}`,
  }
  t.equal((await cli(['setup', '--email', 'owner@doctor.test', '--password', 'owner password 1'], env)).code, 0)
  return { env, dataDir, api, http, admin }
}

t.test('doctor on this machine (the tools installed, Caddy running): every check, a held port fails with who holds it', async (t) => {
  const { env, dataDir, http, admin } = await portsEnv(t)
  await startCaddy(t, admin)
  // Something other than Caddy on the HTTP port: this test process.
  const squatter = createServer()
  await new Promise<void>((r) => squatter.listen(http, '127.0.0.1', () => r()))

  let d = await doctor(env)
  t.equal(d.code, 1, 'a failing check: exit 1')
  t.match(d.get(`port ${http}/tcp`), {
    status: 'fail',
    message: new RegExp(`held by node \\(pid ${process.pid}\\)`),
    fix: /HEARTH_PROXY_HTTP_PORT/,
  })
  t.match(d.get(`port ${env.HEARTH_PORT}/tcp`), { status: 'ok', message: /free/ })
  t.match(d.get(`port ${env.HEARTH_DNS_PORT}/udp+tcp`), { status: 'ok', message: /free/ })
  for (const tool of ['caddy', 'smartctl', 'mdadm', 'nft'])
    t.match(d.get(`tool ${tool}`), { status: 'ok', message: new RegExp(`/${tool}$`) })
  t.match(d.get('caddy admin'), { status: 'ok', message: /answers/ })
  t.match(d.get('driver storage'), { status: 'ok', message: /linux-basic is used/ })
  t.match(d.get('driver firewall'), { status: 'ok', message: /nftables: supported/ })
  t.match(d.get('driver proxy'), { status: 'ok' })
  for (const kind of ['storage', 'firewall', 'network', 'proxy', 'vpn']) t.ok(d.get(`driver ${kind}`), `the ${kind} drivers are probed`)
  t.match(d.get('hearth.env'), { status: 'ok', message: /0600/ })
  t.match(d.get('data folder'), { status: 'ok' })
  t.match(d.get('clock'), { status: 'ok' })
  for (const f of d.findings) if (f.status !== 'ok') t.ok(f.fix, `${f.check}: a ${f.status} comes with its fix`)

  await new Promise<void>((r) => squatter.close(() => r()))
  d = await doctor(env)
  t.match(d.get(`port ${http}/tcp`), { status: 'ok', message: /free/ })
  t.equal(d.code, 0, `nothing fails once the port is free (${d.findings.filter((f) => f.status === 'fail').map((f) => f.check)})`)

  chmodSync(join(dataDir, 'hearth.env'), 0o644)
  d = await doctor(env)
  t.equal(d.code, 1)
  t.match(d.get('hearth.env'), { status: 'fail', message: /mode 0644/, fix: `chmod 600 ${join(dataDir, 'hearth.env')}` })

  const text = await cli(['doctor'], env)
  t.match(text.stdout, /FAIL {2}hearth\.env: .*\n {6}fix: chmod 600/, 'the text report gives the fix under the finding')
})

t.test('doctor without the tools (PATH an empty folder): each tool missing with how to install it', async (t) => {
  const { env } = await portsEnv(t)
  const empty = join(tempDir(t), 'empty-bin')
  mkdirSync(empty)
  const bare = { ...env, PATH: empty }
  const d = await doctor(bare)
  const fixes: Record<string, RegExp> = {
    caddy: /apt-get install caddy/,
    smartctl: /apt-get install smartmontools/,
    mdadm: /apt-get install mdadm/,
    nft: /apt-get install nftables/,
    tailscale: /tailscale/,
  }
  for (const [tool, fix] of Object.entries(fixes)) t.match(d.get(`tool ${tool}`), { status: 'warn', message: /not found on PATH/, fix })
  t.match(d.get('driver storage'), { status: 'warn', message: /lsblk is not installed/, fix: /util-linux/ })
  t.match(d.get('driver firewall'), { status: 'ok', message: /noop is used.*nft is not installed/ })
  t.match(d.get('caddy admin'), { status: 'warn', fix: /start Caddy/ })
  t.equal(d.code, 0, 'warnings alone exit 0')
  t.equal((await doctor(bare, ['--strict'])).code, 1, '--strict: warnings fail')
})
