import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import { Ajv, type Options, type ValidateFunction } from 'ajv'
import formats from 'ajv-formats'
import type { FastifyInstance } from 'fastify'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { validationDetails } from './envelope.js'
import { HttpError } from './errors.js'
import { listSerializer } from './list-page.js'

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext. Read when the first
// Ajv is made, not at load.
const addFormats = (ajv: Ajv): Ajv => (((formats as unknown as { default?: unknown }).default ?? formats) as (ajv: Ajv) => Ajv)(ajv)

// The instants whose UTC form has a four-digit year.
const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z')
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z')

function make(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, strict: false, removeAdditional: false, ...options })
  addFormats(ajv)
  // A datetime is stored and answered in UTC: one whose offset carries it past year 9999 (or before
  // year 0) has no ISO form the answer's schema takes, and stored it would fail every later read.
  const written = ajv.formats['date-time'] as { validate: (value: string) => boolean } | ((value: string) => boolean)
  const check = typeof written === 'function' ? written : written.validate
  ajv.addFormat('date-time', (value: string) => {
    if (!check(value)) return false
    const at = Date.parse(value)
    return at >= FIRST_INSTANT && at <= LAST_INSTANT
  })
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
 * is an error, docs/api.md), while query strings, params and headers are
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

const serializerFactory = SerializerSelector()({}, {})
type Route = Parameters<typeof serializerFactory>[0]
const compile = (route: Route) => serializerFactory(route) as Serialize

/**
 * A schema as a response serializer would write it (fast-json-stringify, the routes' options), compiled on
 * its first call as route serializers are: records asks for three at start, and each compile held its
 * generated code and fast-json-stringify's own Ajv from the start on (idle memory).
 */
export function compileSerializer(schema: object): Serialize {
  let serialize: Serialize | undefined
  return (data) => (serialize ??= compile({ schema, method: 'GET', url: '/', httpStatus: '200' } as Route))(data)
}

/**
 * Compiles a route's schema now, with the validator its first request would use: routes compile
 * lazily, so a schema Ajv rejects would otherwise surface only when that route is first called
 * (test/core/route-schemas.test.ts compiles every route's schemas this way).
 */
export function compileNow(schema: object, httpPart: 'body' | 'querystring' | 'params' | 'headers'): void {
  ;(httpPart === 'body' ? strictAjv() : coercingAjv()).compile(schema)
}

export function installValidators(app: FastifyInstance, answerBudget: number): void {
  app.setValidatorCompiler(({ schema, httpPart }) => lazyValidator(httpPart === 'body' ? strictAjv : coercingAjv, schema))

  app.setSerializerCompiler((route) => {
    let serialize: Serialize | undefined
    const whole = (data: unknown) => (serialize ??= listOfUnionSerializer(route as Route, compile) ?? compile(route as Route))(data)
    // Every list page is written item by item within the answer's byte budget, a large one as a stream (core/list-page.ts).
    const items = listItems(route as Route, compile)
    if (items) return listSerializer({ frame: whole, itemSerializer: items, budget: answerBudget })
    return whole
  })
}

type Serialize = (data: unknown) => string
type ObjectSchema = {
  type?: unknown
  required?: string[]
  properties?: Record<string, ObjectSchema>
  items?: ObjectSchema
  anyOf?: ObjectSchema[]
}

/**
 * A list whose items are a union of object schemas (a record or its compact
 * form): fast-json-stringify picks a union's branch by running Ajv on every
 * item, which cost a fifth of a list request. Here each branch gets its own
 * serializer and a page goes to the first branch whose required properties
 * every item has (a few `in` checks); a page no branch fits takes the
 * general serializer, as before.
 */
function listOfUnionSerializer<R extends { schema?: unknown }>(route: R, compile: (route: R) => Serialize): Serialize | undefined {
  const schema = route.schema as ObjectSchema
  const branches = schema.properties?.data?.items?.anyOf
  if (!branches?.length || !branches.every((b) => b.type === 'object' && Array.isArray(b.required))) return undefined
  const data = schema.properties?.data as ObjectSchema
  const perBranch = branches.map((branch) => {
    let serialize: Serialize | undefined
    const required = branch.required as string[]
    return {
      fits: (items: unknown[]) => items.every((item) => typeof item === 'object' && item !== null && required.every((key) => key in item)),
      serialize: (page: unknown) =>
        (serialize ??= compile({
          ...route,
          schema: { ...schema, properties: { ...schema.properties, data: { ...data, items: branch } } },
        }))(page),
    }
  })
  let general: Serialize | undefined
  return (page) => {
    const items = (page as { data?: unknown } | null)?.data
    const branch = Array.isArray(items) ? perBranch.find((b) => b.fits(items)) : undefined
    return branch ? branch.serialize(page) : (general ??= compile(route))(page)
  }
}

/**
 * For a list envelope (`{ data: Item[], meta, ... }`): the serializer of one item for the items of a
 * page, a union's branch chosen per page as listOfUnionSerializer chooses it. Undefined for any other schema.
 */
function listItems<R extends { schema?: unknown }>(
  route: R,
  compile: (route: R) => Serialize,
): ((items: unknown[]) => Serialize) | undefined {
  const schema = route.schema as ObjectSchema
  const item = schema?.properties?.data?.items
  if (schema?.properties?.data?.type !== 'array' || !schema.properties.meta || !item) return undefined
  const lazy = (itemSchema: ObjectSchema) => {
    let serialize: Serialize | undefined
    return (value: unknown) => (serialize ??= compile({ ...route, schema: itemSchema }))(value)
  }
  const general = lazy(item)
  const branches = item.anyOf
  if (!branches?.length || !branches.every((b) => b.type === 'object' && Array.isArray(b.required))) return () => general
  const perBranch = branches.map((branch) => ({ required: branch.required as string[], serialize: lazy(branch) }))
  return (items) => {
    const fits = (required: string[]) =>
      items.every((value) => typeof value === 'object' && value !== null && required.every((key) => key in value))
    return perBranch.find((b) => fits(b.required))?.serialize ?? general
  }
}
