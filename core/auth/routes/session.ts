import { Type } from '@sinclair/typebox'
import type { PluginInstance } from '../../plugin-api.js'
import { Single } from '../../schemas.js'
import { AuthStatus, ChangePasswordBody, LoginAnswer, LoginBody, MfaLoginBody, RefreshBody, Session, SetupBody } from '../schemas.js'
import { clientInfo } from './client-info.js'
import type { AuthRoutesOptions } from './index.js'

export async function sessionRoutes(app: PluginInstance, { service, users, passkeys, version, throttled }: AuthRoutesOptions) {
  const pub = { auth: false } as const
  const throttledPub = { auth: false, errors: ['RATE_LIMITED'] }
  // A wrong password or a dead refresh token answers 401 on these public routes.
  const signIn = { auth: false, errors: ['RATE_LIMITED', 'UNAUTHORIZED'], secret: true }

  app.get(
    '/auth/status',
    {
      config: pub,
      schema: {
        summary: 'Tell whether the appliance awaits setup, has one user or several',
        description: '`passkeys`: whether passkey sign-in is on (HEARTH_PUBLIC_HOSTNAME is set).',
        response: { 200: Single(AuthStatus) },
      },
    },
    async () => ({ mode: users.mode(), version, passkeys: passkeys.enabled() }),
  )

  app.post(
    '/auth/setup',
    {
      config: { ...throttledPub, errors: ['RATE_LIMITED', 'CONFLICT'], secret: true },
      onRequest: throttled('setup'),
      schema: {
        operationId: 'auth.setup',
        summary: 'Create the first user (the owner)',
        description: 'Only while the appliance has no user; afterwards 409 CONFLICT.',
        body: SetupBody,
        response: { 201: Single(Session) },
      },
    },
    async (req, reply) => {
      reply.code(201)
      return service.setup(req.body, clientInfo(req))
    },
  )

  app.post(
    '/auth/login',
    {
      config: signIn,
      schema: {
        summary: 'Sign in with email and password',
        description:
          'Answers an access token (24 hours) and a refresh token (30 days); when the user turned two-factor sign-in on, `{ mfa_required: true, mfa_token, methods }` and no tokens: POST /auth/login/mfa completes it. Repeated failures from one client answer 429 RATE_LIMITED for a while.',
        body: LoginBody,
        response: { 200: Single(LoginAnswer) },
      },
    },
    async (req) => service.login(req.body, clientInfo(req)),
  )

  app.post(
    '/auth/login/mfa',
    {
      config: signIn,
      schema: {
        summary: 'Complete a sign-in with a second factor',
        description:
          "The `mfa_token` login answered (5 minutes, 5 tries) and a code from the user's authenticator app or one of their recovery codes. Each code works once; wrong codes count on their own throttle (429 RATE_LIMITED).",
        body: MfaLoginBody,
        response: { 200: Single(Session) },
      },
    },
    async (req) => service.loginMfa(req.body, clientInfo(req)),
  )

  app.post(
    '/auth/refresh',
    {
      config: signIn,
      onRequest: throttled('refresh'),
      schema: {
        summary: 'Exchange a refresh token for new tokens (the old one is revoked)',
        body: RefreshBody,
        response: { 200: Single(Session) },
      },
    },
    async (req) => service.refresh(req.body.refresh_token, clientInfo(req)),
  )

  app.post(
    '/auth/logout',
    {
      config: pub,
      schema: { summary: 'Revoke a refresh token', body: RefreshBody, response: { 200: Single(Type.Object({ ok: Type.Boolean() })) } },
    },
    async (req) => {
      service.logout(req.body.refresh_token)
      return { ok: true }
    },
  )

  // The same change at both paths: /auth/password is the name the household page uses.
  for (const [url, summary] of [
    ['/auth/password', "Change the caller's password"],
    ['/auth/change-password', "Change the caller's password (the older path)"],
  ] as const) {
    app.post(
      url,
      {
        config: { scope: 'general', userContext: true, errors: ['FORBIDDEN', 'RATE_LIMITED'], secret: true },
        schema: {
          summary,
          description:
            'Every other session of the user is signed out and every app password ends (devices are added again); the answer carries new tokens. With two-factor sign-in on, only a signed-in session of the user may (403 for keys and the system token): the answer would otherwise be a session that skipped the second factor.',
          body: ChangePasswordBody,
          response: { 200: Single(Session) },
        },
      },
      async (req) =>
        service.changePassword(req.userId, req.body.current_password, req.body.new_password, {
          ...clientInfo(req),
          signedIn: req.auth.via === 'jwt',
          sessionId: req.auth.sessionId,
        }),
    )
  }
}
