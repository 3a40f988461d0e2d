import type { FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { HttpError } from '../../errors.js'
import type { PluginInstance } from '../../plugin-api.js'
import { Single } from '../../schemas.js'
import { APPLE_PROFILE_TYPE, appleProfile } from '../apple-profile.js'
import { AppPasswordBody } from '../schemas.js'
import type { AuthRoutesOptions } from './index.js'

/** Where devices find CalDAV and CardDAV (RFC 6764's well-known URLs lead there too). */
const DAV_PATH = '/dav/'
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*|\[[0-9A-Fa-f:.]{2,45}\])$/

/**
 * The address a device reaches Hearth at: the one this request came to (Host, or X-Forwarded-Host and
 * -Proto from a trusted proxy). It is only shown back to the member who asked, never fetched.
 */
function reachedAt(req: FastifyRequest): { host: string; port: number; tls: boolean } {
  const tls = req.protocol === 'https'
  const authority = req.host
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(authority)
  const host = match?.[1] ?? ''
  const port = match?.[2] ? Number(match[2]) : tls ? 443 : 80
  if (!HOST.test(host) || port < 1 || port > 65535)
    throw new HttpError('VALIDATION_ERROR', 'The Host header names no address a device can use', { field: 'host', constraint: 'format' })
  return { host, port, tls }
}

/** Adding a phone or a computer in one step: a new app password named after it, in the form the device takes. */
export async function addDeviceRoutes(app: PluginInstance, { appPasswords, users, deviceRoot }: AuthRoutesOptions) {
  const own = { scope: 'general', userContext: true } as const
  const emailOf = (userId: string) => users.get(userId)?.email ?? ''

  app.post(
    '/devices/davx5',
    {
      config: { ...own, secret: true },
      schema: {
        summary: 'Add a device through DAVx⁵ or another CalDAV/CardDAV client',
        description:
          'Creates an app password named `name` and answers what the client asks for: the base URL (the address this request reached), the user name (the email) and the password (shown this once).',
        body: AppPasswordBody,
        response: { 201: Single(Type.Object({ url: Type.String(), username: Type.String(), password: Type.String() })) },
      },
    },
    async (req, reply) => {
      const { host, port, tls } = reachedAt(req)
      const defaultPort = port === (tls ? 443 : 80)
      const { password } = appPasswords.create(req.userId, req.body.name)
      reply.code(201)
      return {
        url: `${tls ? 'https' : 'http'}://${host}${defaultPort ? '' : `:${port}`}${DAV_PATH}`,
        username: emailOf(req.userId),
        password,
      }
    },
  )

  app.post(
    '/devices/apple-profile',
    {
      config: { ...own, envelope: 'none', secret: true },
      schema: {
        summary: 'Add an iPhone, iPad or Mac: a configuration profile with the calendar and contacts accounts',
        description:
          "Creates an app password named `name` and answers a configuration profile (`application/x-apple-aspen-config`) holding a CalDAV and a CardDAV account for the address this request reached, the email and that password, and, when that address is served over HTTPS with a certificate of the proxy's own CA, that CA's root (`com.apple.security.root`). Opened on the device, it installs them.",
        body: AppPasswordBody,
        response: {
          200: {
            description: 'The profile, as an attachment',
            content: { [APPLE_PROFILE_TYPE]: { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (req, reply) => {
      const where = reachedAt(req)
      const root = where.tls ? await deviceRoot(where.host) : null
      const { password } = appPasswords.create(req.userId, req.body.name)
      const profile = appleProfile({ ...where, name: req.body.name, email: emailOf(req.userId), password, path: DAV_PATH, root })
      reply.header('content-type', APPLE_PROFILE_TYPE)
      reply.header('content-disposition', 'attachment; filename="hearth.mobileconfig"')
      return reply.send(profile)
    },
  )
}
