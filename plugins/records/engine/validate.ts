import type { TSchema } from '@sinclair/typebox'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import formats from 'ajv-formats'
import { HttpError } from '../../../core/plugin-api.js'

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (ajv: Ajv) => Ajv

/**
 * The service validates every body itself with the same rules the routes
 * declare (strict types, no coercion, unknown fields refused), so callers
 * that skip HTTP (import, bench seeding) get the same VALIDATION_ERROR
 * details {field, constraint} as an API client.
 */
const ajv = addFormats(new Ajv({ allErrors: false, useDefaults: false, strict: false, removeAdditional: false, coerceTypes: false }))

const CONSTRAINTS: Record<string, string> = { additionalProperties: 'unknown', const: 'enum', anyOf: 'enum', enum: 'enum' }

/** Same field/constraint naming as the core's error handler: dotted path, ajv keyword. */
export function errorDetails(e: ErrorObject): { field: string; constraint: string } {
  const path = e.instancePath.split('/').filter(Boolean)
  const params = e.params as Record<string, unknown>
  if (e.keyword === 'required') path.push(String(params.missingProperty))
  if (e.keyword === 'additionalProperties') path.push(String(params.additionalProperty))
  return { field: path.join('.') || '(root)', constraint: CONSTRAINTS[e.keyword] ?? e.keyword }
}

export type Check = (value: unknown) => void

/** Compiles a schema once into a function that throws VALIDATION_ERROR on the first failure. */
export function compileCheck(schema: TSchema): Check {
  const validate: ValidateFunction = ajv.compile(schema)
  return (value) => {
    if (validate(value)) return
    const first = validate.errors?.[0]
    if (!first) throw new HttpError('VALIDATION_ERROR')
    const details = errorDetails(first)
    const message = details.constraint === 'required' ? `${details.field} is required` : `${details.field} ${first.message ?? 'is invalid'}`
    throw new HttpError('VALIDATION_ERROR', message, details)
  }
}

/** A cross-field rule broken (end_at before start_at, no name at all). */
export function invalid(field: string, constraint: string, message: string): HttpError {
  return new HttpError('VALIDATION_ERROR', message, { field, constraint })
}

export function invalidQuery(field: string, constraint: string, message: string): HttpError {
  return new HttpError('INVALID_QUERY', message, { field, constraint })
}
