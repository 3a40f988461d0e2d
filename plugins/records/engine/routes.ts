import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { IdParams, Limit, ListOf, type PluginInstance, Single, Uuid } from '../../../core/plugin-api.js'
import type { RecordsService, ResourceName } from '../service.js'
import { CustomFields, StringEnum } from './schema-kit.js'
import type { ListQuery, ResourceDefinition } from './types.js'

/**
 * The routes every resource gets, generated from its definition: create,
 * list, get, patch, custom-field merge, delete (soft or permanent), restore.
 * Each is its schema plus a call into the service.
 */

/** Every list parameter of a resource: the common ones plus its own filters. */
export function listQuerySchema(def: ResourceDefinition) {
  return Type.Object(
    {
      limit: Limit,
      // The core's Offset has no upper bound; past 2^53 SQLite's binding throws (a 500).
      offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
      sort: Type.Optional(StringEnum(def.sort.keys, { description: `default ${def.sort.default}` })),
      order: Type.Optional(StringEnum(['asc', 'desc'] as const, { description: `default ${def.sort.order}` })),
      search: Type.Optional(Type.String({ maxLength: 500, description: 'full text; ranked by relevance unless sort is given' })),
      source: Type.Optional(Type.String({ maxLength: 64 })),
      include_deleted: Type.Boolean({ default: false }),
      only_deleted: Type.Boolean({ default: false }),
      format: Type.Optional(StringEnum(['compact'] as const)),
      ...Type.Partial(def.schemas.listFilters).properties,
    },
    { additionalProperties: false },
  )
}

const user = (request: FastifyRequest) => request.auth.userId as string

export function resourceRoutes(app: PluginInstance, service: RecordsService, def: ResourceDefinition): void {
  const resource = def.name as ResourceName
  const base = `/${def.name}`
  const tags = [def.name]
  const Record = def.schemas.record
  const item = Type.Union([def.listItem ?? Record, def.schemas.compact])

  app.post(base, { schema: { tags, body: def.schemas.create, response: { 201: Single(Record) } } }, async (request, reply) => {
    reply.code(201)
    return service.create(user(request), resource, request.body, { source: request.svcSource })
  })

  app.get(
    base,
    { schema: { tags, querystring: listQuerySchema(def), response: { 200: ListOf(item) } }, config: { envelope: 'list' } },
    async (request) => service.list(user(request), resource, request.query as ListQuery),
  )

  app.get(
    `${base}/:id`,
    {
      schema: {
        tags,
        params: IdParams,
        querystring: Type.Object({ include_deleted: Type.Boolean({ default: false }) }),
        response: { 200: Single(Record) },
      },
    },
    async (request) => service.get(user(request), resource, request.params.id, { includeDeleted: request.query.include_deleted }),
  )

  app.patch(
    `${base}/:id`,
    { schema: { tags, params: IdParams, body: def.schemas.patch, response: { 200: Single(Record) } } },
    async (request) => service.update(user(request), resource, request.params.id, request.body),
  )

  app.patch(
    `${base}/:id/custom`,
    { schema: { tags, params: IdParams, body: CustomFields, response: { 200: Single(Record) } } },
    async (request) => service.mergeCustom(user(request), resource, request.params.id, request.body),
  )

  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags,
        params: IdParams,
        querystring: Type.Object({ permanent: Type.Boolean({ default: false }) }),
        response: { 200: Single(Type.Union([Record, Type.Object({ id: Uuid })])) },
      },
    },
    async (request) => service.remove(user(request), resource, request.params.id, { permanent: request.query.permanent }),
  )

  app.post(`${base}/:id/restore`, { schema: { tags, params: IdParams, response: { 200: Single(Record) } } }, async (request) =>
    service.restore(user(request), resource, request.params.id),
  )
}
