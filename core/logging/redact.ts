/**
 * What must never reach a log line: credentials in URLs (query parameters such as `?token=` used by
 * WebSocket upgrades and feed links, API keys and JWTs anywhere in the path) and in headers. Every
 * pattern is a single pass over its input with no nested quantifiers (linear time).
 */

/** Query parameters whose value is a credential, matched on the whole name, case-insensitively. */
const SECRET_PARAM = /([?&](?:[\w.-]*[_-])?(?:token|key|apikey|secret|password|passwd|pass|auth|sig|signature|code|session)=)[^&#]*/gi
/** Hearth API keys (`clk_`), system tokens (`hst_`) and JWTs wherever they appear. */
const CREDENTIAL = /\b(?:clk|hst)_[\w-]+|\beyJ[\w-]*\.[\w-]+\.[\w-]*/g

export const REDACTED = '[redacted]'

/** The URL as it may be logged. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAM, `$1${REDACTED}`).replace(CREDENTIAL, REDACTED)
}

/** Settings whose value is a credential (HEARTH_SYSTEM_TOKEN, HEARTH_JWT_SECRET, HEARTH_ENCRYPTION_KEY, a plugin's *_API_KEY...). */
export function isSecretSetting(name: string): boolean {
  return /(?:TOKEN|SECRET|KEY|PASSWORD|PASSPHRASE|CREDENTIALS?)(?:_|$)/i.test(name)
}

/** Header names pino removes from any logged object (request headers are not logged by default; this guards any that are). */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-svc-user-id"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  // @fastify/multipart logs the options it gives busboy at trace, the request's headers among them.
  'busboyOptions.headers.authorization',
  'busboyOptions.headers.cookie',
  'busboyOptions.headers["x-api-key"]',
]
