import { Ajv, type Options } from 'ajv'
import formats from 'ajv-formats'

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (ajv: Ajv) => Ajv
import type { FastifyInstance } from 'fastify'

/**
 * Two validators: JSON bodies are typed strictly (a number sent as a string
 * is an error, decisions.md), while query strings, params and headers are
 * text on the wire and are coerced into their declared types.
 */
function make(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, strict: false, removeAdditional: false, ...options })
  addFormats(ajv)
  return ajv
}

export function installValidators(app: FastifyInstance): void {
  const strictAjv = make({ coerceTypes: false })
  const coercingAjv = make({ coerceTypes: 'array' })
  app.setValidatorCompiler(
    ({ schema, httpPart }) => (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema) as ReturnType<Ajv['compile']>,
  )
}
