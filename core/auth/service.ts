import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/sqlite.js'
import type { EventBus } from '../events.js'
import { HttpError } from '../errors.js'
import type { Role } from '../schemas.js'
import { randomToken, sha256 } from './hash.js'
import { DUMMY_HASH, hashPassword, verifyPassword } from './passwords.js'
import { MFA_METHODS, type MfaChallenges } from './mfa-challenges.js'
import type { SecondFactor } from './second-factor.js'
import type { AppPasswords } from './app-passwords.js'
import type { SignInAttempt, SignInThrottle } from './sign-in-throttle.js'
import type { ClientInfo, Tokens } from './tokens.js'
import type { UserRow, Users } from './users.js'
import { preparedOnUse } from '../db/prepared-on-use.js'

const INVITE_TTL_S = 7 * 24 * 3600
const RESET_TTL_S = 3600

export interface AuthServiceDeps {
  db: Db
  users: Users
  tokens: Tokens
  log: FastifyBaseLogger
  events: EventBus
  /** Failed sign-ins per client and per account from that client. */
  signIns: SignInThrottle
  /** The TOTP factor and recovery codes of users who turned two-factor sign-in on. */
  secondFactor: SecondFactor
  /** Sign-ins whose password was right and whose second factor is awaited. */
  challenges: MfaChallenges
  /** Wrong second-factor codes, counted like failed sign-ins but on their own budget. */
  mfaThrottle: SignInThrottle
  /** Wrong current passwords at a password change, per user across all clients (besides signIns). */
  passwordChecks: SignInThrottle
  /** The devices' app passwords: a new password ends them with the sessions. */
  appPasswords: Pick<AppPasswords, 'revokeAll'>
  /** Sends a password-reset token; resolves false when no mailer is configured. */
  deliverReset: (email: string, token: string) => Promise<boolean>
}

/** Users' sessions: setup, login (and its second-factor step), refresh, invitations and password recovery. */
export function createAuthService(deps: AuthServiceDeps) {
  const { db, users, tokens } = deps
  const nowS = () => Math.floor(Date.now() / 1000)

  /** New tokens for the user: a new session, or the next tokens of `continuing` (a session's id). */
  const session = async (user: UserRow, client: ClientInfo = {}, continuing?: string) => ({
    ...(await tokens.issue(user, continuing, client)),
    user: users.toPublic(user),
  })
  const wrongCode = () => new HttpError('UNAUTHORIZED', 'Invalid or expired sign-in code')

  const q = preparedOnUse(db, {
    insertInvite: 'INSERT INTO invitations (id, token_hash, email, role, invited_by, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    findInvite: 'SELECT * FROM invitations WHERE token_hash = ? AND used_at IS NULL AND expires_at >= ?',
    useInvite: 'UPDATE invitations SET used_at = ? WHERE id = ? AND used_at IS NULL',
    insertReset: 'INSERT INTO password_resets (id, user_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?)',
    findReset: 'SELECT * FROM password_resets WHERE token_hash = ? AND used_at IS NULL AND expires_at >= ?',
    useReset: 'UPDATE password_resets SET used_at = ? WHERE id = ? AND used_at IS NULL',
  })

  /**
   * What a new password ends: every session, and every app password. A member changes the password
   * when something may have leaked, and an app password is what a stolen session makes to keep a way
   * in (one request, no expiry, calendars and contacts read and written): it must not outlive the
   * change. Devices are added again with new ones. API keys stay: they are made by admins for agents
   * and services, listed in GET /admin/api-keys, and revoked there one by one.
   */
  const signOutEverywhere = (userId: string) => {
    tokens.revokeAllForUser(userId)
    deps.appPasswords.revokeAll(userId)
  }

  const ensureEmailFree = (email: string) => {
    if (users.byEmail(email)) throw new HttpError('CONFLICT', 'A user with this email already exists', { field: 'email' })
  }

  return {
    /** The tokens of a sign-in completed another way (a passkey): the same session a password login opens. */
    session,

    async setup(input: { email: string; password: string; name?: string }, client: ClientInfo = {}) {
      if (users.count() > 0) throw new HttpError('CONFLICT', 'Setup is already complete')
      const passwordHash = await hashPassword(input.password)
      // Checked again after the await: two concurrent setups must not both create an owner.
      if (users.count() > 0) throw new HttpError('CONFLICT', 'Setup is already complete')
      const user = users.create({ email: input.email, name: input.name ?? null, passwordHash, role: 'owner' })
      deps.events.emit('user.created', { userId: user.id, id: user.id, data: users.toPublic(user) })
      return session(user, client)
    },

    /** The tokens, or, when the user turned two-factor sign-in on, a challenge the second step answers with a code. */
    async login(input: { email: string; password: string }, client: ClientInfo & { address: string }) {
      const attempt = deps.signIns.begin(input.email, client.address, 'Too many failed logins; try again later')
      const user = users.byEmail(input.email)
      const ok = await verifyPassword(input.password, user?.password_hash ?? DUMMY_HASH)
      if (!user || !ok || user.disabled) {
        attempt.failed()
        throw new HttpError('UNAUTHORIZED', 'Invalid email or password')
      }
      attempt.succeeded()
      if (deps.secondFactor.enabled(user.id))
        return { mfa_required: true as const, mfa_token: deps.challenges.issue(user.id), methods: [...MFA_METHODS] }
      return session(user, client)
    },

    /**
     * The second step: a TOTP code or a recovery code for the challenge login answered. A wrong, replayed
     * or expired code is 401 and one step of the second-factor throttle (per account and client, and per client).
     */
    async loginMfa(input: { mfa_token: string; code: string }, client: ClientInfo & { address: string }) {
      const userId = deps.challenges.userOf(input.mfa_token)
      const attempt = deps.mfaThrottle.begin(userId ?? '', client.address, 'Too many wrong sign-in codes; try again later')
      const user = userId ? users.get(userId) : undefined
      if (!user || user.disabled || !deps.secondFactor.verify(user.id, input.code)) {
        attempt.failed()
        deps.challenges.failed(input.mfa_token)
        throw wrongCode()
      }
      attempt.succeeded()
      deps.challenges.spend(input.mfa_token)
      return session(user, client)
    },

    async refresh(refreshToken: string, client: ClientInfo = {}) {
      const outcome = tokens.consumeRefresh(refreshToken)
      if (!outcome.ok) {
        if (outcome.reason === 'reused') deps.log.warn('refresh token reuse detected: token family revoked')
        throw new HttpError('UNAUTHORIZED', 'Invalid or expired refresh token')
      }
      const user = users.get(outcome.userId)
      if (!user || user.disabled) throw new HttpError('UNAUTHORIZED', 'Invalid or expired refresh token')
      const pair = await tokens.issue(user, outcome.familyId, client)
      return { ...pair, user: users.toPublic(user) }
    },

    logout(refreshToken: string) {
      tokens.revoke(refreshToken)
    },

    /**
     * A new password: every session of the user ends (access tokens included), and every app password;
     * the answer is new tokens for the caller's session.
     */
    async changePassword(
      userId: string,
      current: string,
      next: string,
      client: ClientInfo & { address: string; signedIn?: boolean; sessionId?: string | undefined },
    ) {
      const user = users.get(userId)
      // The answer is a new session: past a second factor only for a caller already signed in as the user.
      if (user && !client.signedIn && deps.secondFactor.enabled(userId))
        throw new HttpError('FORBIDDEN', 'With two-factor sign-in on, the password is changed from a signed-in session')
      // The current password is a password oracle like login: wrong ones spend the same budgets, and one
      // of the user's own, so a stolen session on many addresses cannot guess it.
      const email = user?.email ?? userId
      const tooMany = 'Too many wrong passwords; try again later'
      const signIn = deps.signIns.begin(email, client.address, tooMany)
      let check: SignInAttempt
      try {
        check = deps.passwordChecks.begin(userId, client.address, tooMany)
      } catch (err) {
        // Refused before any password was looked at: not a failed sign-in of this client.
        signIn.cancel()
        throw err
      }
      if (!user || !(await verifyPassword(current, user.password_hash))) {
        signIn.failed()
        check.failed()
        throw new HttpError('VALIDATION_ERROR', 'Current password is wrong', { field: 'current_password', constraint: 'match' })
      }
      signIn.succeeded()
      check.cancel()
      users.setPassword(userId, await hashPassword(next))
      signOutEverywhere(userId)
      // The caller's session goes on with the new tokens, not a new one: knowing the password is not a
      // sign-in (it skips the second factor), so what asks for a recent sign-in (adding a passkey, a way
      // in that outlives the password) still sees when this session really signed in.
      return session(users.get(userId) as UserRow, client, client.sessionId)
    },

    invite(input: { email: string; role: Exclude<Role, 'owner'> }, invitedBy: string | null) {
      ensureEmailFree(input.email)
      const token = randomToken('hin_')
      const expires = nowS() + INVITE_TTL_S
      q.insertInvite.run(randomUUID(), sha256(token), input.email, input.role, invitedBy, expires, new Date().toISOString())
      return { token, email: input.email, role: input.role, expires_at: new Date(expires * 1000).toISOString() }
    },

    async register(input: { token: string; password: string; name?: string }, client: ClientInfo = {}) {
      const invite = q.findInvite.get(sha256(input.token), nowS()) as { id: string; email: string; role: Role } | undefined
      if (!invite)
        throw new HttpError('VALIDATION_ERROR', 'Invitation token is invalid or expired', { field: 'token', constraint: 'valid' })
      ensureEmailFree(invite.email)
      const passwordHash = await hashPassword(input.password)
      const user = db.transaction(() => {
        if (q.useInvite.run(nowS(), invite.id).changes === 0)
          throw new HttpError('VALIDATION_ERROR', 'Invitation token is invalid or expired', { field: 'token', constraint: 'valid' })
        return users.create({ email: invite.email, name: input.name ?? null, passwordHash, role: invite.role })
      })()
      deps.events.emit('user.created', { userId: user.id, id: user.id, data: users.toPublic(user) })
      return session(user, client)
    },

    /** Creates a reset token for the account; null when no such active account exists. */
    createResetToken(email: string): { token: string; expires_at: string } | null {
      const user = users.byEmail(email)
      if (!user || user.disabled) return null
      const token = randomToken('hpr_')
      const expires = nowS() + RESET_TTL_S
      q.insertReset.run(randomUUID(), user.id, sha256(token), expires, nowS())
      return { token, expires_at: new Date(expires * 1000).toISOString() }
    },

    async forgotPassword(email: string) {
      const reset = this.createResetToken(email)
      if (!reset) return
      const sent = await deps.deliverReset(email, reset.token).catch((err) => {
        deps.log.warn({ err: (err as Error).message }, 'password-reset mail failed')
        return false
      })
      if (!sent) deps.log.info('password reset requested; no mailer configured: use `hearth users reset-token <email>`')
    },

    async resetPassword(token: string, newPassword: string) {
      const reset = q.findReset.get(sha256(token), nowS()) as { id: string; user_id: string } | undefined
      if (!reset) throw new HttpError('VALIDATION_ERROR', 'Reset token is invalid or expired', { field: 'token', constraint: 'valid' })
      const passwordHash = await hashPassword(newPassword)
      db.transaction(() => {
        if (q.useReset.run(nowS(), reset.id).changes === 0)
          throw new HttpError('VALIDATION_ERROR', 'Reset token is invalid or expired', { field: 'token', constraint: 'valid' })
        users.setPassword(reset.user_id, passwordHash)
        signOutEverywhere(reset.user_id)
      })()
    },
  }
}
export type AuthService = ReturnType<typeof createAuthService>
