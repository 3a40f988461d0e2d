import { definePlugin, type HealthReport, type ScheduledJob } from '../../core/plugin-api.js'
import { isCron } from '../../lib/cron.js'
import { DnsConfig } from './config.js'
import { registerFirewallDrivers } from './firewall-drivers.js'
import { accountRoutes } from './routes/accounts.js'
import { ddnsRoutes } from './routes/ddns.js'
import { networkRoutes } from './routes/network.js'
import { recordRoutes } from './routes/records.js'
import { zoneRoutes } from './routes/zones.js'
import { createDnsServer } from './server/index.js'
import { createContext } from './services/context.js'
import { createServices } from './services/index.js'
import { challengeHandlers } from './services/challenges.js'
import { PROVIDER_ERROR } from './services/providers.js'
import { publishAll } from './services/zone-data.js'

/**
 * DNS: zones served by the built-in authoritative server or kept at an
 * external provider, templates, DDNS and diagnostics. The server starts with
 * the plugin; when it cannot bind, HTTP keeps serving and /health says so.
 */
export default definePlugin(
  {
    name: 'dns',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    prefix: '/dns',
    // Agent keys read DNS, storage and network; writes take a session or a system key.
    scope: 'appliance',
    description: "The home's DNS: authoritative zones served by Hearth, zones kept at DNS providers, dynamic DNS",
    migrations: new URL('./migrations/', import.meta.url),
    config: DnsConfig,
  },
  async (app, api) => {
    const config = api.config
    for (const [name, expr] of [
      ['HEARTH_DDNS_CRON', config.ddnsCron],
      ['HEARTH_DNS_NS_POLL_CRON', config.nsPollCron],
    ] as const) {
      if (!isCron(expr)) throw new Error(`${name}=${expr} is not a valid cron expression`)
    }
    api.errors.define(PROVIDER_ERROR, 502, 'The DNS provider failed or refused the request')

    const log = api.log.child({ component: 'dns-server' })
    const server = createDnsServer({
      host: config.host,
      port: config.port,
      rateLimit: { perSecond: config.rateLimit },
      log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m), debug: (m) => log.debug(m) },
    })
    const ctx = createContext(api, config, server)
    publishAll(ctx)

    // NS-verification polling runs while some authoritative zone waits for its delegation.
    let nsJob: ScheduledJob | null = null
    const ensureNsPolling = () => {
      nsJob ??= api.cron.schedule('dns-ns-verification', config.nsPollCron, async () => {
        if ((await services.ns.poll()) === 0) {
          nsJob?.stop()
          nsJob = null
        }
      })
    }
    const services = createServices(ctx, { onAuthoritativeCreated: ensureNsPolling })
    if (ctx.zones.authoritative().some((z) => z.propagation_status !== 'verified')) ensureNsPolling()
    services.ddns.attach(api.cron.schedule('dns-ddns', config.ddnsCron, () => services.ddns.check().then(() => undefined)))

    for (const off of challengeHandlers(ctx)) api.onClose(off)
    api.onClose(() => server.stop())
    api.metrics.register('counter', 'hearth_dns_answers_total', 'DNS answers sent, by RCODE', ['rcode'], () =>
      Object.entries(server.status.byRcode).map(([rcode, value]) => ({ labels: { rcode }, value })),
    )
    api.metrics.register('counter', 'hearth_dns_dropped_total', 'DNS packets dropped as garbage', [], () => [
      { value: server.status.dropped },
    ])
    api.metrics.register('counter', 'hearth_dns_rate_limited_total', 'DNS UDP answers held back by response rate limiting', [], () => [
      { value: server.status.rateLimited },
    ])
    api.metrics.register(
      'counter',
      'hearth_dns_tcp_refused_total',
      'DNS TCP connections closed because their source held its share',
      [],
      () => [{ value: server.status.tcpRefused }],
    )
    if (config.port !== 0) {
      const started = await server.start()
      if (started.error) {
        api.log.error(
          `${started.error}. HTTP keeps serving; set HEARTH_DNS_PORT to a free port (e.g. 5353), or 0 to disable the DNS server.`,
        )
      }
    }
    api.health.register('dns', (): HealthReport => {
      if (config.port === 0) return { status: 'disabled', message: 'HEARTH_DNS_PORT=0' }
      const status = server.status
      if (!status.running) return { status: 'unavailable', message: status.error ?? 'DNS server is not running' }
      if (!status.udp || !status.tcp) return { status: 'degraded', message: status.error ?? 'DNS server listens on one protocol only' }
      return { status: 'ok', message: `${status.host}:${status.port} (UDP, TCP), ${status.zones} zones` }
    })
    registerFirewallDrivers(api)

    await zoneRoutes(app, services)
    await recordRoutes(app, services)
    await accountRoutes(app, services)
    await ddnsRoutes(app, services)
    await networkRoutes(app, services)
  },
)
