import { Type } from '@sinclair/typebox'
import type { PluginInstance } from '../../plugin-api.js'
import { Single } from '../../schemas.js'
import { ForgotBody, RegisterBody, ResetBody, Session } from '../schemas.js'
import { clientInfo } from './client-info.js'
import type { AuthRoutesOptions } from './index.js'

const Ok = Single(Type.Object({ ok: Type.Boolean() }))

export async function recoveryRoutes(app: PluginInstance, { service, throttled }: AuthRoutesOptions) {
  const pub = { auth: false } as const

  app.post(
    '/auth/register',
    {
      config: { ...pub, errors: ['CONFLICT'], secret: true },
      onRequest: throttled('register'),
      schema: {
        operationId: 'auth.register',
        summary: 'Complete a registration with an invitation token',
        body: RegisterBody,
        response: { 201: Single(Session) },
      },
    },
    async (req, reply) => {
      reply.code(201)
      return service.register(req.body, clientInfo(req))
    },
  )

  // Always 200, whether or not the account exists: the answer must not reveal accounts.
  app.post(
    '/auth/forgot-password',
    {
      config: pub,
      onRequest: throttled('forgot'),
      schema: {
        summary: 'Ask for a password reset email',
        description: 'Always 200, whether or not the account exists, so the answer reveals no accounts.',
        body: ForgotBody,
        response: { 200: Ok },
      },
    },
    async (req) => {
      await service.forgotPassword(req.body.email)
      return { ok: true }
    },
  )

  app.post(
    '/auth/reset-password',
    {
      config: pub,
      onRequest: throttled('reset'),
      schema: {
        summary: 'Set a new password with a reset token',
        description: 'Every session of the user is signed out and every app password ends.',
        body: ResetBody,
        response: { 200: Ok },
      },
    },
    async (req) => {
      await service.resetPassword(req.body.token, req.body.new_password)
      return { ok: true }
    },
  )
}
