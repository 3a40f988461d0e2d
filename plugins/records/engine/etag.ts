import { HttpError } from '../../../core/plugin-api.js'

/**
 * Records' entity tags (RFC 9110 §8.8.3): the row's version, quoted, strong.
 * Every write raises the version, so equal tags mean the same stored record. If-Match is
 * judged by lib/etag.ts.
 */
export const etagOf = (version: number): string => `"${version}"`

/** The version an ETag stands for, or null when it is not one of ours. */
export function versionOf(etag: unknown): number | null {
  const match = typeof etag === 'string' ? /^"([1-9][0-9]{0,15})"$/.exec(etag) : null
  return match ? Number(match[1]) : null
}

/** 412 PRECONDITION_FAILED naming the record's current tag, so a client can re-read and retry. */
export function preconditionFailed(current: string | null): HttpError {
  return new HttpError(
    'PRECONDITION_FAILED',
    current === null
      ? 'The record changed since the If-Match tag was read'
      : `The record changed since the If-Match tag was read: its ETag is now ${current}`,
    current === null ? undefined : { etag: current },
  )
}
