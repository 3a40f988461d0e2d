import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server'
import type { FastifyRequest } from 'fastify'
import { HttpError } from '../../errors.js'
import type { PluginInstance } from '../../plugin-api.js'
import { everything, IdParams, ListOf, Single } from '../../schemas.js'
import type { Arrival } from '../passkeys.js'
import {
  CreationOptions,
  Passkey,
  PasskeyLoginBody,
  PasskeyLoginOptionsBody,
  PasskeyRegisterBody,
  RequestOptions,
} from '../passkey-schemas.js'
import { Session } from '../schemas.js'
import { clientInfo } from './client-info.js'
import type { AuthRoutesOptions } from './index.js'

const OFF = 'Passkeys are off until HEARTH_PUBLIC_HOSTNAME names the host browsers reach Hearth at: 422 `UNPROCESSABLE`.'

/** The client and the port of this daemon the connection came in on (the loopback origin; never a header). */
const arrival = (req: FastifyRequest): Arrival => ({ ...clientInfo(req), localPort: req.socket.localPort })

/** Only the member's own signed-in session adds a passkey: a key or the system token acting for them may not. */
const ownSession = (req: FastifyRequest) => {
  if (req.auth.via !== 'jwt') throw new HttpError('FORBIDDEN', 'Passkeys are added from a signed-in session of the member')
}

export async function passkeyRoutes(app: PluginInstance, { passkeys, tokens }: AuthRoutesOptions) {
  const own = { scope: 'general', userContext: true } as const
  const signIn = { auth: false, errors: ['RATE_LIMITED', 'UNAUTHORIZED', 'UNPROCESSABLE'], secret: true }

  app.post(
    '/auth/webauthn/register/options',
    {
      config: { ...own, errors: ['FORBIDDEN', 'CONFLICT', 'UNPROCESSABLE'] },
      schema: {
        summary: 'Start adding a passkey',
        description: `No body. Only within 15 minutes of signing in (the session's start; refreshing does not renew it): later, 403 \`FORBIDDEN\` with \`details.reason: 'recent_sign_in'\`, and the member signs in again. Answers the options for navigator.credentials.create() (PublicKeyCredentialCreationOptionsJSON: pass them to @simplewebauthn/browser's startRegistration). The challenge is good for one answer within 5 minutes. 409 at 20 passkeys. ${OFF}`,
        response: { 200: Single(CreationOptions) },
      },
    },
    async (req) => {
      ownSession(req)
      // When this session began (a refresh keeps it): the sign-in that proved the member.
      const signedInAt = tokens.sessions(req.userId).find((s) => s.id === req.auth.sessionId)?.created_at
      return passkeys.registrationOptions(req.userId, req.ip, signedInAt)
    },
  )

  app.post(
    '/auth/webauthn/register',
    {
      config: { ...own, errors: ['FORBIDDEN', 'CONFLICT', 'UNPROCESSABLE'] },
      schema: {
        summary: 'Add a passkey',
        description: `The authenticator's answer (RegistrationResponseJSON) and a name for it. An answer that does not verify (challenge, origin, RP ID, user verification, attestation) is 400 \`VALIDATION_ERROR\` \`response\`. ${OFF}`,
        body: PasskeyRegisterBody,
        response: { 201: Single(Passkey) },
      },
    },
    async (req, reply) => {
      ownSession(req)
      const created = await passkeys.register(req.userId, req.body.response as RegistrationResponseJSON, req.body.name, arrival(req))
      reply.code(201)
      return created
    },
  )

  app.post(
    '/auth/webauthn/login/options',
    {
      config: { auth: false, errors: ['UNPROCESSABLE'] },
      schema: {
        summary: 'Start signing in with a passkey',
        description: `Answers the options for navigator.credentials.get() (PublicKeyCredentialRequestOptionsJSON, for startAuthentication). With an \`email\`, that account's passkeys are listed in \`allowCredentials\`; without one (or an empty body) the list is empty and the browser offers the passkeys it holds for this site. ${OFF}`,
        body: PasskeyLoginOptionsBody,
        response: { 200: Single(RequestOptions) },
      },
      preValidation: async (req) => {
        req.body ??= {}
      },
    },
    async (req) => passkeys.loginOptions(req.body.email, req.ip),
  )

  app.post(
    '/auth/webauthn/login',
    {
      config: signIn,
      schema: {
        summary: 'Sign in with a passkey',
        description: `The authenticator's answer (AuthenticationResponseJSON). Answers the tokens as POST /auth/login does, with no second-factor step (a passkey is one). Anything off (challenge unknown or used, origin, RP ID hash, signature, counter, a disabled account) is 401 \`UNAUTHORIZED\` and one step of the sign-in throttle passwords count on (429 \`RATE_LIMITED\` once spent). ${OFF}`,
        body: PasskeyLoginBody,
        response: { 200: Single(Session) },
      },
    },
    async (req) => passkeys.login(req.body.response as AuthenticationResponseJSON, arrival(req)),
  )

  app.get(
    '/auth/webauthn/credentials',
    { config: own, schema: { summary: "List the caller's passkeys", response: { 200: ListOf(Passkey) } } },
    async (req) => everything(passkeys.list(req.userId)),
  )

  app.delete(
    '/auth/webauthn/credentials/:id',
    {
      config: own,
      schema: {
        summary: 'Delete a passkey',
        description: 'It signs in no more. 404 when the id is not one of the caller’s.',
        params: IdParams,
        response: { 200: Single(Passkey) },
      },
    },
    async (req) => passkeys.remove(req.userId, req.params.id),
  )
}
