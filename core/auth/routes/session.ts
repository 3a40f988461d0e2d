import { Type } from '@sinclair/typebox'
import type { PluginInstance } from '../../plugin-api.js'
import { Single } from '../../schemas.js'
import { AuthStatus, ChangePasswordBody, LoginBody, RefreshBody, Session, SetupBody } from '../schemas.js'
import type { AuthRoutesOptions } from './index.js'

export async function sessionRoutes(app: PluginInstance, { service, users, version, throttled }: AuthRoutesOptions) {
  const pub = { auth: false } as const

  app.get('/auth/status', { config: pub, schema: { response: { 200: Single(AuthStatus) } } }, async () => ({ mode: users.mode(), version }))

  app.post(
    '/auth/setup',
    { config: pub, onRequest: throttled('setup'), schema: { body: SetupBody, response: { 201: Single(Session) } } },
    async (req, reply) => {
      reply.code(201)
      return service.setup(req.body)
    },
  )

  app.post('/auth/login', { config: pub, schema: { body: LoginBody, response: { 200: Single(Session) } } }, async (req) =>
    service.login(req.body, req.ip),
  )

  app.post(
    '/auth/refresh',
    { config: pub, onRequest: throttled('refresh'), schema: { body: RefreshBody, response: { 200: Single(Session) } } },
    async (req) => service.refresh(req.body.refresh_token),
  )

  app.post(
    '/auth/logout',
    { config: pub, schema: { body: RefreshBody, response: { 200: Single(Type.Object({ ok: Type.Boolean() })) } } },
    async (req) => {
      service.logout(req.body.refresh_token)
      return { ok: true }
    },
  )

  app.post(
    '/auth/change-password',
    { config: { scope: 'admin', userContext: true }, schema: { body: ChangePasswordBody, response: { 200: Single(Session) } } },
    async (req) => service.changePassword(req.auth.userId as string, req.body.current_password, req.body.new_password),
  )
}
