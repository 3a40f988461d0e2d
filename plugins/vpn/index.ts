import { Type } from '@sinclair/typebox'
import { definePlugin, Nullable, Single } from '../../core/plugin-api.js'
import type { VpnDriver } from '../../drivers/vpn/driver.js'
import tailscale from '../../drivers/vpn/tailscale/index.js'
import { env } from '../../lib/config-env.js'

const VpnConfig = Type.Object({
  bin: env('HEARTH_TAILSCALE_BIN', Type.String({ minLength: 1, default: 'tailscale' })),
  /** The command that installs the CLI, as comma-separated words (run as an argument array, no shell). Empty: install answers 503. */
  installCommand: { ...Type.Array(Type.String({ minLength: 1 }), { default: [] }), env: 'HEARTH_TAILSCALE_INSTALL_CMD' },
})

const Status = Type.Object({
  installed: Type.Boolean(),
  running: Type.Boolean(),
  logged_in: Type.Boolean(),
  hostname: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  tailnet: Nullable(Type.String()),
})
const Login = Type.Object({ auth_url: Nullable(Type.String()) })
const CertBody = Type.Object(
  { domain: Type.Optional(Type.String({ pattern: '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' })) },
  { additionalProperties: false },
)
const Cert = Type.Object({ domain: Type.String(), cert_path: Type.String(), key_path: Type.String() })

/**
 * The VPN (Tailscale) through the HAL kind `vpn`. Anyone signed in reads the status; installing,
 * logging in or out and certificates need an admin. Each action emits `vpn.changed` (admins only
 * on the WebSocket: it belongs to no user).
 */
export default definePlugin(
  { name: 'vpn', version: '1.0.0', apiVersion: '^1.0.0', prefix: '/hal/network/vpn', config: VpnConfig, description: 'Tailscale VPN' },
  async (app, api) => {
    api.hal.register(tailscale)
    api.hal.configure('vpn', { bin: api.config.bin, installCommand: api.config.installCommand })
    const vpn = <R>(fn: (driver: VpnDriver) => Promise<R>) => api.hal.with<VpnDriver, R>('vpn', fn)
    const changed = async () => api.events.emit('vpn.changed', { userId: null, data: await vpn((d) => d.status()) })
    const admin = { role: 'admin' } as const
    const tags = ['vpn']

    app.get(
      '/status',
      {
        config: { errors: ['SERVICE_UNAVAILABLE'] },
        schema: { summary: 'Get the state of the VPN', tags, response: { 200: Single(Status) } },
      },
      () => vpn((d) => d.status()),
    )
    app.post(
      '/install',
      {
        config: { ...admin, errors: ['UNPROCESSABLE', 'SERVICE_UNAVAILABLE'] },
        schema: { summary: 'Install the VPN client', tags, response: { 200: Single(Status) } },
      },
      async () => {
        await vpn((d) => d.install())
        await changed()
        return vpn((d) => d.status())
      },
    )
    app.post(
      '/login',
      {
        config: { ...admin, errors: ['UNPROCESSABLE', 'SERVICE_UNAVAILABLE'] },
        schema: {
          summary: 'Start a VPN login',
          description: 'Answers the URL where an admin approves this appliance.',
          tags,
          response: { 200: Single(Login) },
        },
      },
      async () => {
        const answer = await vpn((d) => d.login())
        await changed()
        return answer
      },
    )
    app.post(
      '/logout',
      {
        config: { ...admin, errors: ['SERVICE_UNAVAILABLE'] },
        schema: { summary: 'Log the appliance out of the VPN', tags, response: { 200: Single(Status) } },
      },
      async () => {
        await vpn((d) => d.logout())
        await changed()
        return vpn((d) => d.status())
      },
    )
    app.post(
      '/generate-cert',
      {
        config: { ...admin, errors: ['UNPROCESSABLE', 'SERVICE_UNAVAILABLE'] },
        schema: {
          summary: "Obtain a certificate for the appliance's VPN name",
          description: 'The pair is handed to the proxy, which serves it for routes of that name. The body is optional.',
          tags,
          body: CertBody,
          response: { 200: Single(Cert) },
        },
        // The body is optional (the node's own name by default): an empty POST validates as {}.
        preValidation: async (req) => {
          req.body ??= {}
        },
      },
      async (req) => {
        const cert = await vpn((d) => d.generateCert(req.body.domain ?? null))
        // The proxy plugin, when loaded, serves the pair for routes of that name (event contract: vpn.cert.generated).
        await api.events.emitAndWait('vpn.cert.generated', { userId: null, data: cert })
        return cert
      },
    )
  },
)
