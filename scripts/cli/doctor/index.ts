import { readSlice } from '../../../core/config.js'
import { DnsConfig } from '../../../plugins/dns/config.js'
import { ProxyConfig } from '../../../plugins/proxy/config.js'
import { type Command, EXIT } from '../command.js'
import { type Context, createContext } from '../context.js'
import { daemonSettings } from '../daemon-settings.js'
import { caddyFinding } from './caddy.js'
import { clockFindings } from './clock.js'
import { driverFindings } from './drivers.js'
import type { Finding } from './finding.js'
import { fileFindings } from './files.js'
import { offsiteFindings } from './offsite.js'
import { type PortCheck, portFindings } from './ports.js'
import { toolFindings } from './tools.js'

/** Runs every check; one that throws becomes a failing finding of its own rather than stopping the rest. */
export async function runDoctor(ctx: Context): Promise<Finding[]> {
  const { sources, config } = ctx
  const dns = readSlice(DnsConfig, sources, 'dns')
  const proxy = readSlice(ProxyConfig, sources, 'proxy')
  const daemon = ctx.daemon()
  const own = daemon ? [daemon.pid] : []
  const ports: PortCheck[] = [
    {
      port: daemon?.port ?? config.port,
      protos: ['tcp'],
      purpose: 'the API',
      expected: { pids: own, commands: [], ...(daemon ? { daemonPid: daemon.pid } : {}) },
      variable: 'HEARTH_PORT',
    },
    {
      port: proxy.httpPort,
      protos: ['tcp'],
      purpose: 'HTTP through Caddy',
      expected: { pids: own, commands: ['caddy'] },
      variable: 'HEARTH_PROXY_HTTP_PORT',
    },
    {
      port: proxy.httpsPort,
      protos: ['tcp'],
      purpose: 'HTTPS through Caddy',
      expected: { pids: own, commands: ['caddy'] },
      variable: 'HEARTH_PROXY_HTTPS_PORT',
    },
  ]
  if (dns.port > 0)
    ports.unshift({
      port: dns.port,
      protos: ['udp', 'tcp'],
      purpose: "Hearth's DNS server",
      expected: { pids: own, commands: [] },
      variable: 'HEARTH_DNS_PORT',
    })

  const guarded = async (check: string, fn: () => Finding[] | Promise<Finding[]>): Promise<Finding[]> => {
    try {
      return await fn()
    } catch (err) {
      return [
        {
          check,
          status: 'fail',
          message: `the check itself failed: ${(err as Error).message}`,
          fix: 'report this with the output of `hearth doctor --json`',
        },
      ]
    }
  }
  return [
    ...(await guarded('daemon', () => [
      daemon
        ? { check: 'daemon', status: 'ok', message: `running (pid ${daemon.pid}, port ${daemon.port}, version ${daemon.version})` }
        : { check: 'daemon', status: 'ok', message: 'not running' },
    ])),
    ...(await guarded('files', () => fileFindings(config.dataDir))),
    ...(await guarded('ports', () => portFindings(ports))),
    ...(await guarded('tools', () => toolFindings(ctx.env.PATH ?? '', sources.HEARTH_TAILSCALE_BIN || 'tailscale'))),
    ...(await guarded('drivers', () => driverFindings(sources, config.dataDir))),
    ...(await guarded('caddy admin', async () => [await caddyFinding(proxy.caddyAdmin)])),
    ...(await guarded('clock', () => clockFindings(config.dataDir))),
    ...(await guarded('off-site', () => offsiteFindings(sources, config.dataDir))),
  ]
}

const MARK = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' } as const

export const doctor: Command = {
  name: 'doctor',
  summary: 'Check drivers, ports, permissions, tools, Caddy and the clock, with the fix for each problem',
  usage: 'hearth doctor [--json] [--strict]',
  help: `The settings checked are the daemon's: the running daemon's environment (read from /proc), else
the hearth unit's Environment= and EnvironmentFile= (with its drop-ins), else this shell's; each
with <data>/hearth.env under them. The first line says which.
Checks: every driver's probe (storage, firewall, network, proxy, vpn, offsite) as the daemon would run
it; ports (DNS 53 udp+tcp, HTTP 80, HTTPS 443, the API 7200, or as configured): free or who holds
them; the data folder and hearth.env (must be 0600); the tools caddy, smartctl, mdadm, nft,
tailscale; Caddy's admin API; the clock; off-site protection (the last run, check and
drill, and whether the emergency kit was printed).
Exit 1 when a check fails (with --strict, when one warns too).
--json    the findings as JSON: [{ check, status: ok|warn|fail, message, fix }]`,
  options: { json: { type: 'boolean' }, strict: { type: 'boolean' } },
  maxArgs: 0,
  async run(args, ctx) {
    const settings = daemonSettings(ctx.env)
    const findings: Finding[] = [
      { check: 'settings', status: 'ok', message: `read from ${settings.from}` },
      ...(await runDoctor(createContext(settings.env))),
    ]
    if (args.values.json) ctx.out(JSON.stringify(findings, null, 2))
    else
      for (const f of findings) {
        ctx.out(`${MARK[f.status]}  ${f.check}: ${f.message}`)
        if (f.fix) ctx.out(`      fix: ${f.fix}`)
      }
    const failed = findings.some((f) => f.status === 'fail' || (args.values.strict && f.status === 'warn'))
    return failed ? EXIT.FAILURE : EXIT.OK
  },
}
