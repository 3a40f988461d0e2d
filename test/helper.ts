import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp, type BuildOptions } from '../core/app.js'
import type { HearthEvent } from '../core/events.js'
import { appCode } from './totp-reference.js'

export interface TestContext {
  teardown(fn: () => unknown): void
}

export type TestApp = FastifyInstance & { dataDir: string; systemToken: string; env: Record<string, string> }

/**
 * An app on a fresh temporary data folder, closed and removed in teardown.
 * The DNS server is off unless the test sets HEARTH_DNS_PORT; Caddy is unreachable unless it sets HEARTH_CADDY_ADMIN.
 */
export async function build(
  t: TestContext,
  opts: Omit<BuildOptions, 'env'> & { env?: Record<string, string>; dataDir?: string } = {},
): Promise<TestApp> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'hearth-test-'))
  const env: Record<string, string> = {
    HEARTH_DATA_DIR: dataDir,
    HEARTH_LOG_LEVEL: 'silent',
    HEARTH_DNS_PORT: '0',
    // Never the machine's own Caddy (127.0.0.1:2019): a test that wants one starts it and says where.
    HEARTH_CADDY_ADMIN: 'http://127.0.0.1:1',
    HEARTH_PLUGINS_DIR: '',
    ...opts.env,
  }
  const app = (await buildApp({ ...opts, env })) as TestApp
  app.dataDir = dataDir
  app.env = env
  app.systemToken = app.hearth.config.systemToken
  t.teardown(async () => {
    await app.close()
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true })
  })
  return app
}

export const auth = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra })

export interface TestUser {
  token: string
  refreshToken: string
  userId: string
  email: string
  password: string
}

/** Creates the owner through POST /auth/setup. */
export async function owner(app: FastifyInstance, email = 'owner@example.test', password = 'correct horse battery'): Promise<TestUser> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: { email, password, name: 'Owner' } })
  if (res.statusCode !== 201) throw new Error(`setup failed: ${res.statusCode} ${res.body}`)
  const data = res.json().data
  return { token: data.accessToken, refreshToken: data.refreshToken, userId: data.user.id, email, password }
}

let counter = 0
/** Invites and registers another user (role 'user' unless given), through the API. */
export async function addUser(
  app: FastifyInstance,
  ownerToken: string,
  opts: { role?: 'admin' | 'user'; email?: string } = {},
): Promise<TestUser> {
  const email = opts.email ?? `user${++counter}-${Date.now()}@example.test`
  const password = 'another good password'
  const invite = await app.inject({
    method: 'POST',
    url: '/api/v1/admin/invitations',
    headers: auth(ownerToken),
    payload: { email, role: opts.role ?? 'user' },
  })
  if (invite.statusCode !== 201) throw new Error(`invite failed: ${invite.statusCode} ${invite.body}`)
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { token: invite.json().data.token, password } })
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`)
  const data = res.json().data
  return { token: data.accessToken, refreshToken: data.refreshToken, userId: data.user.id, email, password }
}

/** Creates an API key through the admin API and returns its plaintext. */
export async function apiKey(
  app: FastifyInstance,
  adminToken: string,
  body: { scope?: 'agent' | 'system' | 'sync' | 'dav'; user_id?: string; label?: string } = {},
): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/admin/api-keys', headers: auth(adminToken), payload: body })
  if (res.statusCode !== 201) throw new Error(`api key failed: ${res.statusCode} ${res.body}`)
  return res.json().data.key
}

/** POST /auth/password as `token`'s session (from `remoteAddress` when given): the answer as it came. */
export function changePassword(app: FastifyInstance, token: string, current: string, next: string, remoteAddress?: string) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/auth/password',
    headers: auth(token),
    payload: { current_password: current, new_password: next },
    ...(remoteAddress ? { remoteAddress } : {}),
  })
}

/** Turns the user's two-factor sign-in on with their app's code at `atMs`: the secret, and the confirmation's status. */
export async function turnOnTwoFactor(
  app: FastifyInstance,
  user: TestUser,
  atMs = Date.now(),
): Promise<{ secret: string; status: number }> {
  const step = (url: string, payload: object) =>
    app.inject({ method: 'POST', url: `/api/v1/auth/2fa/totp/${url}`, headers: auth(user.token), payload })
  const { secret } = (await step('setup', { password: user.password })).json().data as { secret: string }
  const confirmed = await step('confirm', { password: user.password, code: appCode(secret, atMs) })
  return { secret, status: confirmed.statusCode }
}

/** Records every event published on the app's bus while the test runs. */
export function recordEvents(app: FastifyInstance, pattern = '*'): HearthEvent[] {
  const seen: HearthEvent[] = []
  app.hearth.events.on(pattern, (e) => {
    seen.push(e)
  })
  return seen
}
