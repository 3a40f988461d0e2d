import { Type } from '@sinclair/typebox'
import type { PluginInstance } from '../../plugin-api.js'
import { Single } from '../../schemas.js'
import { RecoveryCodes, TotpConfirmBody, TotpDisableBody, TotpSetup, TotpSetupBody, TwoFactorStatus } from '../schemas.js'
import type { AuthRoutesOptions } from './index.js'

export async function twoFactorRoutes(app: PluginInstance, { twoFactor }: AuthRoutesOptions) {
  const own = { scope: 'general', userContext: true } as const

  app.get(
    '/auth/2fa',
    { config: own, schema: { summary: 'Tell whether two-factor sign-in is on', response: { 200: Single(TwoFactorStatus) } } },
    async (req) => twoFactor.status(req.userId),
  )

  app.post(
    '/auth/2fa/totp/setup',
    {
      config: { ...own, errors: ['CONFLICT', 'RATE_LIMITED'], secret: true },
      schema: {
        summary: 'Start setting up an authenticator app',
        description:
          'Needs the password (a wrong one is 400 VALIDATION_ERROR `password`). Answers a new secret and its `otpauth://` URL (for a QR code). Nothing changes at sign-in until POST /auth/2fa/totp/confirm; a second set-up replaces a pending one; 409 while two-factor sign-in is on.',
        body: TotpSetupBody,
        response: { 200: Single(TotpSetup) },
      },
    },
    async (req) => twoFactor.setup(req.userId, req.body.password, req.ip),
  )

  app.post(
    '/auth/2fa/totp/confirm',
    {
      config: { ...own, errors: ['CONFLICT', 'RATE_LIMITED'], secret: true },
      schema: {
        summary: 'Turn two-factor sign-in on with a first code',
        description:
          'Needs the password and a code from the app. Answers ten single-use recovery codes, shown this once. Every other session of the user is signed out. A wrong password or code is 400 VALIDATION_ERROR (`password` or `code`); 409 when no set-up is pending.',
        body: TotpConfirmBody,
        response: { 200: Single(RecoveryCodes) },
      },
    },
    async (req) => twoFactor.confirm(req.userId, req.body.password, req.body.code, req.ip, req.auth.sessionId),
  )

  app.delete(
    '/auth/2fa/totp',
    {
      config: { ...own, errors: ['RATE_LIMITED'] },
      schema: {
        summary: 'Turn two-factor sign-in off',
        description: 'Needs the password and a current code (or a recovery code); the recovery codes are deleted.',
        body: TotpDisableBody,
        response: { 200: Single(Type.Object({ ok: Type.Boolean() })) },
      },
    },
    async (req) => {
      await twoFactor.disable(req.userId, req.body.password, req.body.code, req.ip)
      return { ok: true }
    },
  )
}
