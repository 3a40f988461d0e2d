import { type TSchema, Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'

/**
 * The HTTP side of records' entity tags, shared by every record route: the If-Match header a
 * write takes, and the ETag header a single-record answer sends.
 */

/** The If-Match request header of conditional writes (RFC 9110 §13.1.1). */
export const ConditionalHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      maxLength: 2048,
      description:
        'Write only if the record is still at this ETag (as last read: `"7"`), or one of a comma-separated list; `*` matches any existing record. A stale tag answers 412 PRECONDITION_FAILED.',
    }),
  ),
})

/** The If-Match header a request sent, as the service takes it. */
export const ifMatchOf = (request: { headers: Record<string, unknown> }): { ifMatch?: string } => {
  const value = request.headers['if-match']
  return typeof value === 'string' ? { ifMatch: value } : {}
}

/** A single-record answer's schema with its ETag header documented (the OpenAPI generator reads `headers`). */
export function withEtag<T extends TSchema>(schema: T): T {
  return {
    ...schema,
    headers: { ETag: { type: 'string', description: "The record's entity tag, the same as its `etag` field: send it back in If-Match" } },
  }
}

/** Sends the record's ETag header (a record carries `etag`; a permanent delete's `{ id }` has none). */
export function tagged<T extends object>(reply: FastifyReply, record: T): T {
  const etag = (record as { etag?: unknown }).etag
  if (typeof etag === 'string') void reply.header('etag', etag)
  return record
}
