import { HttpError } from '../../../core/plugin-api.js'

/** A compiled body check (api.validator): throws VALIDATION_ERROR with {field, constraint} on the first failure. */
export type Check = (value: unknown) => void
/** A cross-field rule broken (end_at before start_at, no name at all). */
export function invalid(field: string, constraint: string, message: string): HttpError {
  return new HttpError('VALIDATION_ERROR', message, { field, constraint })
}

export function invalidQuery(field: string, constraint: string, message: string): HttpError {
  return new HttpError('INVALID_QUERY', message, { field, constraint })
}
