/**
 * Proxy bench: through the HTTP API of a daemon in its own process, with a real Caddy,
 * (1) the time from `POST /hal/network/proxy/routes` to the first 200 proxied by Caddy, p50/p99 over
 * 40 routes, beside the same measure for a route loaded straight into Caddy's admin API in this run
 * (what Caddy alone takes); (2) how long a Caddy started empty takes to serve 1,000 routes that
 * Hearth holds (written while Caddy was down, then pushed by the reconciliation).
 *
 * Run alone: node dist/scripts/bench/proxy.js
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { freePort, json, ownerWithKey, startDaemon } from './harness.js'

const ROUTES = 40
const MANY = 1000

function get(port: number, host: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, headers: { host }, agent: false, timeout: 2000 }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', () => resolve(0))
    req.end()
  })
}

async function firstOk(port: number, host: string, limitMs = 30_000): Promise<void> {
  const end = performance.now() + limitMs
  while ((await get(port, host)) !== 200) if (performance.now() > end) throw new Error(`${host} never answered 200`)
}

const pct = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] as number
const round = (ms: number) => Math.round(ms * 10) / 10

export async function benchProxy(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-caddy-'))
  const [adminPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()]
  writeFileSync(join(dir, 'caddy.json'), JSON.stringify({ admin: { listen: `127.0.0.1:${adminPort}` } }))
  let caddy: ChildProcess | null = null
  const startCaddy = async () => {
    caddy = spawn('caddy', ['run', '--config', join(dir, 'caddy.json')], {
      env: { ...process.env, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
      stdio: 'ignore',
    })
    while ((await get(adminPort, `127.0.0.1:${adminPort}`)) === 0) await new Promise((r) => setTimeout(r, 20))
  }
  const stopCaddy = () =>
    new Promise<void>((resolve) =>
      caddy && caddy.exitCode === null ? (caddy.once('exit', () => resolve()), caddy.kill('SIGKILL')) : resolve(),
    )
  const upstream = createServer((_req, res) => res.end('ok'))
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  await startCaddy()
  const daemon = await startDaemon({
    HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
    HEARTH_PROXY_HTTP_PORT: String(httpPort),
    HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
    HEARTH_PROXY_RECONCILE_MS: '100',
  })
  try {
    const { token } = await ownerWithKey(daemon.url)
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` }
    const post = (domain: string) =>
      fetch(`${daemon.url}/api/v1/hal/network/proxy/routes`, { method: 'POST', headers, body: JSON.stringify({ domain, target }) })

    const viaHearth: number[] = []
    for (let i = 0; i < ROUTES; i++) {
      const started = performance.now()
      await json(await post(`r${i}.bench.test`))
      await firstOk(httpPort, `r${i}.bench.test`)
      viaHearth.push(performance.now() - started)
    }
    // Baseline: Caddy alone, one route loaded straight through its admin API.
    const caddyAlone: number[] = []
    for (let i = 0; i < 10; i++) {
      const host = `direct${i}.bench.test`
      const config = {
        admin: { listen: `127.0.0.1:${adminPort}` },
        apps: {
          http: {
            servers: {
              s: {
                listen: [`:${httpPort}`],
                automatic_https: { disable: true },
                routes: [{ match: [{ host: [host] }], handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: target.slice(7) }] }] }],
              },
            },
          },
        },
      }
      const started = performance.now()
      await fetch(`http://127.0.0.1:${adminPort}/load`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(config),
      })
      await firstOk(httpPort, host)
      caddyAlone.push(performance.now() - started)
    }

    // 1,000 routes written while Caddy is down, then Caddy started empty.
    await stopCaddy()
    for (let i = 0; i < MANY; i++) await json(await post(`m${i}.bench.test`))
    const restarted = performance.now()
    await startCaddy()
    await firstOk(httpPort, `m${MANY - 1}.bench.test`, 120_000)
    const reconcile = performance.now() - restarted
    return {
      'POST route → first proxied 200, p50 ms': round(pct(viaHearth, 50)),
      'POST route → first proxied 200, p99 ms': round(pct(viaHearth, 99)),
      'baseline: Caddy alone, /load → first 200, p50 ms': round(pct(caddyAlone, 50)),
      [`Caddy restarted empty → all ${MANY} routes served, ms`]: Math.round(reconcile),
    }
  } finally {
    await daemon.stop()
    await stopCaddy()
    upstream.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.table(await benchProxy())
