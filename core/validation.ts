import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import { Ajv, type Options, type ValidateFunction } from 'ajv'
import formats from 'ajv-formats'
import type { FastifyInstance } from 'fastify'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { validationDetails } from './envelope.js'
import { HttpError } from './errors.js'

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (ajv: Ajv) => Ajv

function make(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, strict: false, removeAdditional: false, ...options })
  addFormats(ajv)
  return ajv
}

/**
 * Compiles a route's validator on its first request instead of at start:
 * compiling every schema of every plugin up front cost most of the start-up
 * time, and many routes of an appliance are rarely called.
 */
function lazyValidator(ajv: () => Ajv, schema: object): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const validate = ((data: unknown) => {
    compiled ??= ajv().compile(schema)
    const ok = compiled(data)
    validate.errors = compiled.errors
    return ok
  }) as ValidateFunction
  return validate
}

/**
 * Two validators: JSON bodies are typed strictly (a number sent as a string
 * is an error, decisions.md), while query strings, params and headers are
 * text on the wire and are coerced into their declared types.
 */
// Created on the first compilation: building Ajv with its formats is start-up time otherwise.
let strict: Ajv | undefined
let coercing: Ajv | undefined
const strictAjv = () => (strict ??= make({ coerceTypes: false }))
const coercingAjv = () => (coercing ??= make({ coerceTypes: 'array' }))

/**
 * The body rules as a function, for plugins that validate records arriving
 * another way than a request body (imports, CLI): same strictness, same
 * VALIDATION_ERROR details as the API. Compiled on first use.
 */
export function compileCheck(schema: object): (value: unknown) => void {
  const validate = lazyValidator(strictAjv, schema)
  return (value) => {
    if (validate(value)) return
    const first = validate.errors?.[0]
    if (!first) throw new HttpError('VALIDATION_ERROR')
    const details = validationDetails(first as FastifySchemaValidationError)
    const message = details.constraint === 'required' ? `${details.field} is required` : `${details.field} ${first.message ?? 'is invalid'}`
    throw new HttpError('VALIDATION_ERROR', message, details)
  }
}

export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => lazyValidator(httpPart === 'body' ? strictAjv : coercingAjv, schema))

  const factory = SerializerSelector()({}, {})
  app.setSerializerCompiler((route) => {
    let serialize: ((data: unknown) => string) | undefined
    return (data: unknown) => {
      serialize ??= factory(route as Parameters<typeof factory>[0]) as (data: unknown) => string
      return serialize(data)
    }
  })
}
