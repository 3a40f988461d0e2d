import type { Test } from 'tap'
import type { TestApp } from '../../../test/helper.js'
import { auth } from '../../../test/helper.js'

/** Tier-gate checks shared by the pro plugins' tests (sync, digest, ai, photos). */
type Tap = Pick<Test, 'equal'>

/** Sets a user's tier through the admin API. */
export async function setTier(t: Tap, app: TestApp, adminToken: string, userId: string, tier: 'free' | 'pro') {
  const res = await app.inject({ method: 'PATCH', url: `/api/v1/admin/users/${userId}`, headers: auth(adminToken), payload: { tier } })
  t.equal(res.statusCode, 200, `tier ${tier}`)
}

/** Every route answers 403 FEATURE_NOT_AVAILABLE to this (free) caller. */
export async function expectProOnly(t: Tap, app: TestApp, token: string, routes: Array<[string, string, unknown?]>) {
  for (const [method, url, payload] of routes) {
    const res = await app.inject({ method: method as 'GET', url, headers: auth(token), ...(payload ? { payload: payload as object } : {}) })
    t.equal(res.statusCode, 403, `${method} ${url}`)
    t.equal(res.json().error.code, 'FEATURE_NOT_AVAILABLE', `${method} ${url}`)
  }
}
