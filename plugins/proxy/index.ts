import { readFileSync } from 'node:fs'
import { Type } from '@sinclair/typebox'
import { definePlugin, IdParams, ListOf, Nullable, Single, StringEnum, Timestamp, everything } from '../../core/plugin-api.js'
import caddy from '../../drivers/proxy/caddy/index.js'
import { ProxyConfig } from './config.js'
import { proxyHealth } from './health.js'
import { proxyService } from './service.js'
import { deviceRoot } from './device-root.js'
import type { ProxyPluginService } from './public.js'
import { localCa, sslStatus } from './ssl.js'
import { dnsProviderService } from './dns-provider.js'
import { dns01Service } from './dns01.js'
import { subdomainService } from './subdomain.js'
import { routeStore } from './store.js'

const Route = Type.Object({
  id: Type.String(),
  domain: Type.String(),
  target: Type.String(),
  ssl: Type.Boolean(),
  enabled: Type.Boolean(),
  error: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
})
const CreateBody = Type.Object(
  {
    domain: Type.String({ minLength: 1, maxLength: 253 }),
    target: Type.String({ minLength: 1, maxLength: 2048 }),
    ssl: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
const UpdateBody = Type.Partial(CreateBody, { additionalProperties: false, minProperties: 1 })
const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) })
const SslEntry = Type.Object({
  domain: Type.String(),
  issuer: Nullable(Type.String()),
  not_before: Nullable(Timestamp),
  not_after: Nullable(Timestamp),
  days_left: Nullable(Type.Integer()),
  auto_renew: Type.Boolean(),
  status: StringEnum(['valid', 'expiring', 'expired', 'pending', 'error'] as const),
  error: Nullable(Type.String()),
})
const Ca = Type.Object({ pem: Type.String(), fingerprint_sha256: Type.String(), not_after: Timestamp })
const ProviderConfig = Type.Object({
  provider: Nullable(Type.String()),
  configured: Type.Boolean(),
  zone: Nullable(Type.String()),
  last_tested_at: Nullable(Timestamp),
  connected: Nullable(Type.Boolean()),
})
const ProviderBody = Type.Object(
  {
    provider: Type.String({ minLength: 1 }),
    credentials: Type.Record(Type.String(), Type.String({ maxLength: 1000 }), { maxProperties: 8 }),
    zone: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 253 }))),
  },
  { additionalProperties: false },
)
const Subdomain = Type.Object({
  subdomain: Nullable(Type.String()),
  instance_ip: Nullable(Type.String()),
  active: Type.Boolean(),
  expiry: Nullable(Type.String()),
})
const SubdomainBody = Type.Object(
  { name: Type.Optional(Type.String({ pattern: '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' })) },
  { additionalProperties: false },
)
const ProviderRecord = Type.Object({
  id: Type.String(),
  type: Type.String(),
  name: Type.String(),
  content: Type.String(),
  ttl: Type.Integer(),
  priority: Nullable(Type.Integer()),
  proxied: Type.Boolean(),
})

/**
 * The reverse proxy: routes in SQLite, served by Caddy through the HAL kind `proxy` (driver
 * proxy/caddy). Any signed-in user reads the routes; changing them needs an admin.
 */
export default definePlugin(
  {
    name: 'proxy',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    prefix: '',
    config: ProxyConfig,
    migrations: new URL('./migrations/', import.meta.url),
    description: 'Reverse proxy through Caddy',
  },
  async (app, api) => {
    const c = api.config
    api.hal.register(caddy)
    api.hal.configure('proxy', {
      admin: c.caddyAdmin,
      httpPort: c.httpPort,
      httpsPort: c.httpsPort,
      acmeDirectory: c.acmeDirectory,
      acmeEmail: c.acmeEmail,
      acmeCaRoot: c.acmeCaRoot,
    })
    const dnsProvider = dnsProviderService(api)
    const dns01 = dns01Service(api, dnsProvider)
    const service = proxyService(api, routeStore(api.db), dns01)
    api.services.provide<ProxyPluginService>({ localRootFor: deviceRoot(api, service) })
    // Pushed on start and whenever Caddy stops serving the last push (a restarted Caddy comes back empty).
    void service.push().then(() => service.certifyAll())
    // A Tailscale certificate (POST /hal/network/vpn/generate-cert) is served for routes of its name.
    const offCert = api.events.on('vpn.cert.generated', async (event) => {
      const { domain, cert_path, key_path } = event.data as { domain: string; cert_path: string; key_path: string }
      dns01.adopt(domain, readFileSync(cert_path, 'utf8'), readFileSync(key_path, 'utf8'))
      await service.push()
    })
    api.onClose(offCert)
    // DNS-01 certificates are renewed a month before they end (Caddy renews the ones it manages).
    api.cron.schedule('proxy-dns01-renew', '17 3 * * *', () => service.certifyAll(dns01.due()))
    const timer = setInterval(() => void service.reconcile(), c.reconcileMs)
    timer.unref()
    api.onClose(() => clearInterval(timer))
    api.health.register('proxy', () => proxyHealth(service))

    const admin = { role: 'admin' } as const
    const tags = ['proxy']
    app.get(
      '/hal/network/proxy/routes',
      { schema: { summary: 'List reverse-proxy routes', tags, response: { 200: ListOf(Route) } } },
      async () => everything(service.list()),
    )
    app.post(
      '/hal/network/proxy/routes',
      {
        config: { ...admin, errors: ['CONFLICT', 'UNPROCESSABLE', 'SERVICE_UNAVAILABLE'] },
        schema: {
          summary: 'Create a reverse-proxy route',
          description: 'Caddy serves it at once; a certificate is obtained for its domain when TLS is on.',
          tags,
          body: CreateBody,
          response: { 201: Single(Route) },
        },
      },
      async (req, reply) => {
        reply.code(201)
        return service.create(req.body)
      },
    )
    app.put(
      '/hal/network/proxy/routes/:id',
      {
        config: { ...admin, errors: ['CONFLICT', 'UNPROCESSABLE', 'SERVICE_UNAVAILABLE'] },
        schema: { summary: 'Replace a reverse-proxy route', tags, params: IdParams, body: UpdateBody, response: { 200: Single(Route) } },
      },
      async (req) => service.update(req.params.id, req.body),
    )
    app.get(
      '/hal/network/ssl/status',
      {
        schema: { summary: 'List the certificates of the routes and their state', tags, response: { 200: ListOf(SslEntry) } },
      },
      async () => everything(await sslStatus(api, service, dns01)),
    )
    app.get(
      '/hal/network/ssl/ca',
      {
        config: { errors: ['SERVICE_UNAVAILABLE'] },
        schema: {
          summary: "Get the local certificate authority's root",
          description: 'With `Accept: application/x-pem-file` the answer is the PEM file itself.',
          tags,
          response: { 200: Single(Ca) },
        },
      },
      async (req, reply) => {
        const ca = await localCa(api)
        // With Accept: application/x-pem-file the raw PEM (a file, not the JSON the schema describes).
        if (req.headers.accept?.includes('application/x-pem-file'))
          return reply
            .type('application/x-pem-file')
            .header('content-disposition', 'attachment; filename="hearth-local-ca.pem"')
            .send(ca.pem as never)
        return ca
      },
    )
    app.get(
      '/proxy/dns-provider/config',
      {
        config: admin,
        schema: {
          summary: 'Get the DNS provider integration',
          description: 'Credentials are never answered.',
          tags,
          response: { 200: Single(ProviderConfig) },
        },
      },
      async () => dnsProvider.config(),
    )
    app.put(
      '/proxy/dns-provider/config',
      {
        config: { ...admin, errors: ['UNPROCESSABLE', 'SERVICE_UNAVAILABLE'] },
        schema: {
          summary: 'Set the DNS provider integration',
          description: 'Credentials are stored encrypted and never answered.',
          tags,
          body: ProviderBody,
          response: { 200: Single(ProviderConfig) },
        },
      },
      async (req) => dnsProvider.configure(req.body),
    )
    app.get(
      '/proxy/dns-provider/dns',
      {
        config: { errors: ['UNPROCESSABLE', 'SERVICE_UNAVAILABLE'], ...admin },
        schema: { summary: 'List the records at the DNS provider', tags, response: { 200: ListOf(ProviderRecord) } },
      },
      async () => everything(await dnsProvider.records()),
    )
    const subdomain = subdomainService(api.config.serviceSubdomainUrl, api.config.providerTimeoutMs)
    app.get(
      '/proxy/subdomain',
      {
        config: { errors: ['SERVICE_UNAVAILABLE'] },
        schema: { summary: 'Get the state of the service subdomain', tags, response: { 200: Single(Subdomain) } },
      },
      async () => subdomain.status(),
    )
    app.post(
      '/proxy/subdomain',
      {
        config: { errors: ['CONFLICT', 'UNPROCESSABLE', 'SERVICE_UNAVAILABLE'], role: 'admin', tier: 'pro' },
        schema: {
          summary: 'Request a service subdomain',
          description: 'The name is optional: an empty body lets the service choose one.',
          tags,
          body: SubdomainBody,
          response: { 200: Single(Subdomain) },
        },
        // The name is optional: an empty POST asks the service to choose one.
        preValidation: async (req) => {
          req.body ??= {}
        },
      },
      async (req) => subdomain.request(req.body.name ?? null),
    )
    app.delete(
      '/hal/network/proxy/routes/:id',
      {
        config: { ...admin, errors: ['SERVICE_UNAVAILABLE'] },
        schema: { summary: 'Delete a reverse-proxy route', tags, params: IdParams, response: { 200: Single(Deleted) } },
      },
      async (req) => service.remove(req.params.id),
    )
  },
)
