import type { Role, Tier } from '../schemas.js'

/** `dav` keys sign in to CalDAV/CardDAV (HTTP Basic) and reach nothing else. */
export type KeyScope = 'agent' | 'system' | 'sync' | 'dav'
export type AuthVia = 'jwt' | 'api_key' | 'system_token'

/**
 * Who is calling, resolved once per request by the auth hook.
 * `userId` is the user whose data the request reads and writes: every query
 * of a plugin is scoped by it.
 */
export interface AuthContext {
  via: AuthVia
  /** The acting user; null only for the system token before any user exists. */
  userId: string | null
  email: string | null
  /** The acting user's role; the system token acts with 'owner' rights. */
  role: Role
  tier: Tier
  /** Set for API keys. */
  scope?: KeyScope
  keyId?: string
  /** Set for access tokens: the session (refresh-token family) they belong to. */
  sessionId?: string
}

/**
 * The area a route belongs to, which decides the API-key scopes that reach it (the table in
 * access.ts): 'records' (agent, sync and system keys), 'agents' (agent and system keys),
 * 'appliance' (system keys; agent keys read), 'general' and 'admin' (system keys only).
 */
export type RouteScope = 'records' | 'agents' | 'appliance' | 'general' | 'admin'

/** Route-level guards, declared in a route's `config`. */
export interface RouteGuards {
  /** false makes the route public (no token). Default true. */
  auth?: boolean
  /** Minimum role: 'admin' admits admins and owners. */
  role?: 'admin' | 'owner'
  /** 'pro' answers 403 FEATURE_NOT_AVAILABLE to free users. */
  tier?: Tier
  scope?: RouteScope
  /** Capabilities the route needs, 'kind' or 'kind.flag'; missing → 503 (no driver) or 422 (driver lacks it). */
  requires?: string[]
  /** 'list': handler returns { items, total } and the core adds meta and tier. 'none': reply sent as is. */
  envelope?: 'single' | 'list' | 'none'
  /** Needs a user context (default true on authenticated routes). */
  userContext?: boolean
  /**
   * Catalogue codes the route's service can answer beyond those its guards and
   * schemas imply (NOT_FOUND, VALIDATION_ERROR... are derived): they are listed in the OpenAPI document.
   */
  errors?: string[]
  /**
   * The multipart field of a file upload the handler reads itself (request.file()): Fastify
   * does not validate such a body, and the OpenAPI document describes it as multipart/form-data.
   */
  upload?: string
  /**
   * The answer carries a secret (tokens, recovery codes, a new password or key): sent with
   * `Cache-Control: no-store` so no browser or proxy cache keeps it.
   */
  secret?: boolean
}
