import { drainBody } from './drain.js'
import type { FastifyError, FastifyInstance } from 'fastify'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { HttpError } from './errors.js'

type ErrorPayload = { error: { code: string; message: string; details?: Record<string, unknown> } }

const CONSTRAINTS: Record<string, string> = {
  additionalProperties: 'unknown',
  const: 'enum',
  anyOf: 'enum',
  enum: 'enum',
}

/** Turns the first schema failure into `{ field, constraint }` (field as a dotted path). */
export function validationDetails(v: FastifySchemaValidationError): { field: string; constraint: string } {
  const path = v.instancePath.split('/').filter(Boolean)
  const params = v.params as Record<string, unknown>
  if (v.keyword === 'required') path.push(String(params.missingProperty))
  if (v.keyword === 'additionalProperties') path.push(String(params.additionalProperty))
  return { field: path.join('.') || '(root)', constraint: CONSTRAINTS[v.keyword] ?? v.keyword }
}

function describe(field: string, constraint: string, raw: string | undefined): string {
  if (constraint === 'required') return `${field} is required`
  if (constraint === 'unknown') return `${field} is not an accepted field`
  return `${field} ${raw ?? `fails ${constraint}`}`
}

const TRANSPORT: Record<string, { code: string; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'VALIDATION_ERROR', message: 'Content-Length does not match the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'VALIDATION_ERROR', message: 'Request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'VALIDATION_ERROR', message: 'Malformed JSON body' },
}

const BY_STATUS: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
}

/** Maps anything thrown into an HttpError; unknown failures become a bare 500. */
export function toHttpError(err: FastifyError | Error): HttpError {
  if (err instanceof HttpError) return err
  const fe = err as FastifyError
  if (fe.validation?.length) {
    const first = fe.validation[0] as FastifySchemaValidationError
    const details = validationDetails(first)
    const code = fe.validationContext === 'querystring' ? 'INVALID_QUERY' : 'VALIDATION_ERROR'
    return new HttpError(code, describe(details.field, details.constraint, first.message), details)
  }
  const transport = fe.code ? TRANSPORT[fe.code] : undefined
  if (transport) return new HttpError(transport.code, transport.message)
  if (err instanceof SyntaxError && fe.statusCode === 400) return new HttpError('VALIDATION_ERROR', 'Malformed JSON body')
  const status = fe.statusCode ?? 500
  if (status >= 400 && status < 500) return new HttpError(BY_STATUS[status] ?? 'VALIDATION_ERROR', fe.message)
  if (status === 503) return new HttpError('SERVICE_UNAVAILABLE')
  return new HttpError('INTERNAL_ERROR')
}

export function errorBody(e: HttpError): ErrorPayload {
  return { error: e.details ? { code: e.code, message: e.message, details: e.details } : { code: e.code, message: e.message } }
}

/** The one error handler and the 404 handler, both in the envelope. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (err: FastifyError, request, reply) => {
    const e = toHttpError(err)
    if (e.statusCode >= 500) request.log.error({ err, reqId: request.id }, 'request failed')
    else request.log.debug({ code: e.code, reqId: request.id }, e.message)
    if (e.headers) reply.headers(e.headers)
    // An answer given before the body was read (413, 401...) waits for the body, so the client reads it.
    await drainBody(request.raw)
    return reply.code(e.statusCode).type('application/json').send(errorBody(e))
  })
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody(new HttpError('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`)))
  })
}
