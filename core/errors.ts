/**
 * The error catalogue: every code the API can answer, its HTTP status and its
 * default message. The spec's table comes first; the codes after it cover
 * transport failures the spec leaves open (documented in docs/api.md).
 * Plugins add their own codes through `api.errors.define`.
 */
export const errorCatalogue = {
  VALIDATION_ERROR: { status: 400, message: 'Invalid or missing fields in the request body' },
  INVALID_QUERY: { status: 400, message: 'Invalid query parameters' },
  USER_CONTEXT_REQUIRED: { status: 400, message: 'X-Svc-User-Id header is required in multi-user mode' },
  UNAUTHORIZED: { status: 401, message: 'Invalid or missing authentication token' },
  FORBIDDEN: { status: 403, message: 'Admin role required' },
  FEATURE_NOT_AVAILABLE: { status: 403, message: 'This feature requires the pro tier' },
  INSUFFICIENT_SCOPE: { status: 403, message: 'API key scope does not allow this request' },
  NOT_FOUND: { status: 404, message: 'Resource not found' },
  CONFLICT: { status: 409, message: 'Resource already exists' },
  FILE_EXISTS: { status: 409, message: 'A file with this name already exists in the folder' },
  UNPROCESSABLE: { status: 422, message: 'The request is valid but cannot be processed' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'A dependent component is unavailable' },
  // Beyond the spec's table: transport-level failures.
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  // docs/agents.md: an If-Match that no longer matches the record's ETag.
  PRECONDITION_FAILED: { status: 412, message: 'The resource changed since the If-Match tag was read' },
} as const satisfies Record<string, ErrorEntry>

export interface ErrorEntry {
  status: number
  message: string
}

export type CoreErrorCode = keyof typeof errorCatalogue
export type ErrorCode = CoreErrorCode | (string & {})
export type ErrorDetails = Record<string, unknown>

/**
 * Shared by every copy of this module in the process: the daemon runs as a
 * bundle while third-party plugins import hearth/plugin-api from dist/, and
 * both must see the codes plugins define.
 */
const shared = globalThis as { [key: symbol]: unknown }
const registry = (shared[Symbol.for('hearth.errorRegistry')] ??= new Map<string, ErrorEntry>(Object.entries(errorCatalogue))) as Map<
  string,
  ErrorEntry
>
const HTTP_ERROR = Symbol.for('hearth.HttpError')

/** An error the API answers as `{ error: { code, message, details? } }`. */
export class HttpError extends Error {
  readonly code: string
  readonly statusCode: number
  readonly details?: ErrorDetails
  /** Extra response headers, e.g. Retry-After. */
  readonly headers?: Record<string, string>

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails, headers?: Record<string, string>) {
    const entry = registry.get(code) ?? errorCatalogue.INTERNAL_ERROR
    // An unregistered code is an internal mistake: answer 500 without the caller's text.
    super(registry.has(code) ? (message ?? entry.message) : entry.message)
    this.name = 'HttpError'
    this.code = registry.has(code) ? code : 'INTERNAL_ERROR'
    this.statusCode = entry.status
    if (details) this.details = details
    if (headers) this.headers = headers
    Object.defineProperty(this, HTTP_ERROR, { value: true })
  }

  /** `instanceof HttpError` holds for an HttpError of another copy of this module (a plugin's, beside the bundle). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== HttpError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return value instanceof Error && (value as unknown as Record<symbol, unknown>)[HTTP_ERROR] === true
  }
}

/** Registers a plugin's own error code; redefining a code with another status is refused. */
export function defineError(code: string, status: number, message: string): void {
  if (!/^[A-Z][A-Z0-9_]*$/.test(code)) throw new Error(`error code ${code} must be UPPER_SNAKE_CASE`)
  if (status < 400 || status > 599) throw new Error(`error code ${code} needs a 4xx or 5xx status`)
  const existing = registry.get(code)
  if (existing && existing.status !== status) throw new Error(`error code ${code} is already defined with status ${existing.status}`)
  registry.set(code, { status, message })
}

export function errorEntry(code: string): ErrorEntry | undefined {
  return registry.get(code)
}

export function listErrors(): Array<{ code: string } & ErrorEntry> {
  return [...registry].map(([code, entry]) => ({ code, ...entry }))
}

/** Shorthands for the errors routes and services raise most. */
export const errors = {
  validation: (field: string, constraint: string, message?: string) =>
    new HttpError('VALIDATION_ERROR', message ?? `${field}: ${constraint}`, { field, constraint }),
  invalidQuery: (field: string, constraint: string, message?: string) =>
    new HttpError('INVALID_QUERY', message ?? `${field}: ${constraint}`, { field, constraint }),
  notFound: (what = 'Resource') => new HttpError('NOT_FOUND', `${what} not found`),
  conflict: (message?: string, details?: ErrorDetails) => new HttpError('CONFLICT', message, details),
  unprocessable: (message?: string, details?: ErrorDetails) => new HttpError('UNPROCESSABLE', message, details),
  unavailable: (message?: string, details?: ErrorDetails) => new HttpError('SERVICE_UNAVAILABLE', message, details),
  unauthorized: () => new HttpError('UNAUTHORIZED'),
  forbidden: (message?: string) => new HttpError('FORBIDDEN', message),
  http: (code: ErrorCode, message?: string, details?: ErrorDetails) => new HttpError(code, message, details),
}
export type Errors = typeof errors
