import type { Static, TSchema } from '@sinclair/typebox'
import type { FastifyTypeProvider } from 'fastify'
import type { ENVELOPE, Page } from './schemas.js'

/**
 * TypeBox's type provider, except that a response declared with Single or
 * ListOf (the wire shape) types the handler's return as what the handler
 * really returns: the record, or `{ items, total }`. The route pipeline wraps it.
 */
export interface HearthTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown
  serializer: this['schema'] extends { readonly [ENVELOPE]: { mode: 'single'; record: infer R extends TSchema } }
    ? Static<R>
    : this['schema'] extends { readonly [ENVELOPE]: { mode: 'list'; record: infer I extends TSchema } }
      ? Page<Static<I>>
      : this['schema'] extends TSchema
        ? Static<this['schema']>
        : unknown
}
