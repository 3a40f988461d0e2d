import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import type { Static } from '@sinclair/typebox'
import type { FastifyBaseLogger } from 'fastify'
import { clientOf } from '../client-address.js'
import { HttpError } from '../errors.js'
import { type Ceremony, PASSKEY_TIMEOUT_MS, type PasskeyChallenges } from './passkey-challenges.js'
import { MAX_PASSKEYS, type PasskeyRow, type PasskeyStore, publicPasskey } from './passkey-store.js'
import type { RelyingParty } from './relying-party.js'
import type { Session } from './schemas.js'
import type { SignInThrottle } from './sign-in-throttle.js'
import type { ClientInfo } from './tokens.js'
import type { UserRow, Users } from './users.js'

/** ES256, EdDSA, RS256 (COSE ids): what every current authenticator makes, offered and accepted alike. */
const ALGORITHMS = [-7, -8, -257]

/**
 * How recent the sign-in of a session adding a passkey must be. A passkey outlives the session that
 * added it (and a password change): a stolen session must not turn itself into one, so the member
 * proves themself again (a sign-in, with its second factor) unless they just did.
 */
export const RECENT_SIGN_IN_S = 15 * 60

/** Where an answer arrived: the client (for the throttle and the session) and this daemon's own port (loopback origins). */
export type Arrival = ClientInfo & { address: string; localPort?: number | undefined }

/** The user handle a member's passkeys carry: their id's 16 bytes (stable, so a re-registration replaces, and no personal data). */
export const userHandle = (userId: string) => Buffer.from(userId.replace(/-/g, ''), 'hex')

/** The challenge a client data JSON carries, read before verification so that it is spent whatever follows. */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }
    return typeof data.challenge === 'string' ? data.challenge : undefined
  } catch {
    return undefined
  }
}

/** What both ceremonies check of an answer: the challenge issued, this site's origins and RP ID, a verified user. */
function expected(rp: RelyingParty, challenge: string, arrival: Arrival) {
  return { expectedChallenge: challenge, expectedOrigin: rp.origins(arrival.localPort), expectedRPID: rp.id, requireUserVerification: true }
}

/**
 * Passkeys (WebAuthn): registering one from a signed-in session, and signing in with one. A passkey is
 * a strong factor on its own (the authenticator verifies the member: `userVerification: required`), so
 * its sign-in answers the tokens with no second step. Every ceremony needs a challenge Hearth issued,
 * spent by its first answer; the origin and RP ID hash must be the configured name's; the signature
 * counter must move on. A failed sign-in is one step of the sign-in throttle passwords use.
 */
export function createPasskeys<S>(deps: {
  store: PasskeyStore
  challenges: PasskeyChallenges
  users: Users
  signIns: SignInThrottle
  relyingParty: RelyingParty | null
  session: (user: UserRow, client: ClientInfo) => Promise<S>
  log: FastifyBaseLogger
}) {
  const { store, challenges, users } = deps
  const party = (): RelyingParty => {
    if (!deps.relyingParty)
      throw new HttpError(
        'UNPROCESSABLE',
        'Passkeys are off: the administrator sets HEARTH_PUBLIC_HOSTNAME to the name browsers reach Hearth at',
        {
          setting: 'HEARTH_PUBLIC_HOSTNAME',
        },
      )
    return deps.relyingParty
  }
  const descriptor = (row: PasskeyRow) => ({ id: row.credential_id, transports: JSON.parse(row.transports) as string[] })
  const roomFor = (userId: string) => {
    if (store.count(userId) >= MAX_PASSKEYS)
      throw new HttpError('CONFLICT', `A member holds at most ${MAX_PASSKEYS} passkeys: delete one first`)
  }
  /** Spends the challenge the answer signed; whom it was issued for, or undefined. */
  const spend = (clientDataJSON: string, ceremony: Ceremony) => {
    const challenge = challengeOf(clientDataJSON)
    const taken = challenge ? challenges.take(challenge, ceremony) : undefined
    return taken && challenge ? { challenge, userId: taken.userId } : undefined
  }

  return {
    enabled: () => deps.relyingParty !== null,

    /** What navigator.credentials.create() takes to make a passkey for this member. */
    async registrationOptions(userId: string, address: string, signedInAt: number | undefined) {
      const rp = party()
      if (signedInAt === undefined || Date.now() / 1000 - signedInAt > RECENT_SIGN_IN_S)
        throw new HttpError(
          'FORBIDDEN',
          `Sign in again to add a passkey: it is added within ${RECENT_SIGN_IN_S / 60} minutes of signing in`,
          {
            reason: 'recent_sign_in',
          },
        )
      const user = users.get(userId)
      if (!user) throw new HttpError('NOT_FOUND', 'User not found')
      roomFor(userId)
      return generateRegistrationOptions({
        rpName: 'Hearth',
        rpID: rp.id,
        userName: user.email,
        userDisplayName: user.name ?? user.email,
        userID: userHandle(userId),
        challenge: Buffer.from(challenges.issue('register', userId, clientOf(address)), 'base64url'),
        timeout: PASSKEY_TIMEOUT_MS,
        attestationType: 'none',
        excludeCredentials: store.list(userId).map(descriptor),
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
        supportedAlgorithmIDs: ALGORITHMS,
      })
    },

    /** Verifies the authenticator's answer and keeps the passkey under `name`; 400 `response` when it does not verify. */
    async register(userId: string, response: RegistrationResponseJSON, name: string, arrival: Arrival) {
      const rp = party()
      const spent = spend(response.response.clientDataJSON, 'register')
      const refused = (why: string) =>
        new HttpError('VALIDATION_ERROR', `The passkey was not accepted: ${why}`, { field: 'response', constraint: 'webauthn' })
      if (!spent || spent.userId !== userId) throw refused('the challenge is unknown, used or expired: ask for new options')
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>
      try {
        verified = await verifyRegistrationResponse({
          response,
          ...expected(rp, spent.challenge, arrival),
          supportedAlgorithmIDs: ALGORITHMS,
        })
      } catch (err) {
        throw refused((err as Error).message)
      }
      if (!verified.verified) throw refused('the attestation does not verify')
      roomFor(userId)
      const { credential, credentialBackedUp } = verified.registrationInfo
      const row = store.insert({
        userId,
        credentialId: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: credential.transports ?? response.response.transports ?? [],
        name,
        backedUp: credentialBackedUp,
      })
      if (!row) throw new HttpError('CONFLICT', 'This passkey is already registered')
      return publicPasskey(row)
    },

    /** What navigator.credentials.get() takes; with an email, that account's passkeys are listed (else any passkey of this site). */
    async loginOptions(email: string | undefined, address: string) {
      const rp = party()
      const user = email ? users.byEmail(email) : undefined
      const passkeys = user && !user.disabled ? store.list(user.id) : []
      return generateAuthenticationOptions({
        rpID: rp.id,
        challenge: Buffer.from(challenges.issue('login', user?.id ?? null, clientOf(address)), 'base64url'),
        timeout: PASSKEY_TIMEOUT_MS,
        userVerification: 'required',
        allowCredentials: passkeys.map(descriptor),
      })
    },

    /** Signs in with a passkey: the session, as a password login answers it. 401 and one throttle step when anything is off. */
    async login(response: AuthenticationResponseJSON, arrival: Arrival) {
      const rp = party()
      const row = store.byCredentialId(response.id)
      const owner = row ? users.get(row.user_id) : undefined
      const account = owner?.email ?? ''
      const attempt = deps.signIns.begin(account, arrival.address, 'Too many failed sign-ins; try again later')
      const fail = (why: string) => {
        attempt.failed()
        deps.log.info({ reason: why, userId: owner?.id }, 'passkey sign-in refused')
        return new HttpError('UNAUTHORIZED', 'The passkey could not be verified')
      }
      const spent = spend(response.response.clientDataJSON, 'login')
      if (!spent) throw fail('unknown, used or expired challenge')
      if (!row || !owner) throw fail('unknown credential')
      if (owner.disabled) throw fail('disabled account')
      if (spent.userId !== null && spent.userId !== owner.id) throw fail('the credential is not of the account the options were asked for')
      const handle = response.response.userHandle
      if (handle && handle !== userHandle(owner.id).toString('base64url')) throw fail('the user handle is not the credential owner’s')
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>
      try {
        verified = await verifyAuthenticationResponse({
          response,
          ...expected(rp, spent.challenge, arrival),
          credential: { id: row.credential_id, publicKey: new Uint8Array(row.public_key), counter: row.counter },
        })
      } catch (err) {
        throw fail((err as Error).message)
      }
      if (!verified.verified) throw fail('bad signature')
      const info = verified.authenticationInfo
      // A counter that did not move on: a copy of the authenticator, or the same answer twice at once.
      if (!store.used(row, info.newCounter, info.credentialBackedUp)) throw fail('the signature counter did not move on')
      attempt.succeeded()
      return deps.session(owner, arrival)
    },

    list: (userId: string) => store.list(userId).map(publicPasskey),

    /** Deletes one of the caller's passkeys: it signs in no more. 404 for an id that is not the caller's. */
    remove(userId: string, id: string) {
      const row = store.get(userId, id)
      if (!row || !store.remove(userId, id)) throw new HttpError('NOT_FOUND', 'Passkey not found')
      return publicPasskey(row)
    },
  }
}
export type Passkeys = ReturnType<typeof createPasskeys<Static<typeof Session>>>
