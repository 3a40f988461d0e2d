import { Type } from '@sinclair/typebox'
import { IdParams, Limit, ListOf, type PluginInstance, Single, StringEnum, Uuid } from '../../../core/plugin-api.js'
import { CustomFields } from '../engine/schema-kit.js'
import type { ListQuery, ResourceDefinition } from '../engine/types.js'
import type { EventOccurrences } from '../resources/event-occurrences.js'
import { chosenWrites, type OccurrenceChoice } from '../resources/occurrence-choice.js'
import type { RecordsService, ResourceName } from '../service.js'
import { ConditionalHeaders, ifMatchOf, tagged, withEtag } from './conditional.js'

/**
 * The routes every resource gets, generated from its definition: create,
 * list, get, patch, custom-field merge, delete (soft or permanent), restore.
 * Each is its schema plus a call into the service. Single-record answers send
 * the record's ETag; writes honour If-Match (412 PRECONDITION_FAILED when stale).
 */

/** Every list parameter of a resource: the common ones plus its own filters. */
export function listQuerySchema(def: ResourceDefinition) {
  return Type.Object(
    {
      limit: Limit,
      // The core's Offset has no upper bound; past 2^53 SQLite's binding throws (a 500).
      offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
      after: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description: 'keyset paging: the id of the last item of the previous page; the page starts after it (offset applies from there)',
        }),
      ),
      sort: Type.Optional(StringEnum(def.sort.keys, { description: `default ${def.sort.default}` })),
      order: Type.Optional(StringEnum(['asc', 'desc'] as const, { description: `default ${def.sort.order}` })),
      search: Type.Optional(Type.String({ maxLength: 500, description: 'full text; ranked by relevance unless sort is given' })),
      source: Type.Optional(Type.String({ maxLength: 64 })),
      include_deleted: Type.Boolean({ default: false }),
      only_deleted: Type.Boolean({ default: false }),
      format: Type.Optional(StringEnum(['compact'] as const)),
      ...(def.sharing
        ? {
            owner: Type.Optional(
              StringEnum(['me'] as const, { description: 'me: only your own, without what other members share with you' }),
            ),
          }
        : {}),
      ...Type.Partial(def.schemas.listFilters).properties,
    },
    { additionalProperties: false },
  )
}

/** 'a note', 'an event'. */
const a = (noun: string) => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`

/** PATCH/DELETE of one occurrence of a series, or of it and the following ones (events). */
const OccurrenceQuery = Type.Object({
  scope: Type.Optional(StringEnum(['this', 'following', 'all'] as const, { description: 'default all: the whole series' })),
  occurrence_start: Type.Optional(
    Type.String({ format: 'date-time', description: 'the occurrence, by its start in the series (required with scope this or following)' }),
  ),
})

export function resourceRoutes(
  app: PluginInstance,
  service: RecordsService,
  def: ResourceDefinition,
  occurrences?: EventOccurrences,
): void {
  const resource = def.name as ResourceName
  const base = `/${def.name}`
  const tags = [def.name]
  const one = def.singular
  const Record = def.schemas.record
  const item = Type.Union([def.listItem ?? Record, def.schemas.compact])
  const writes = chosenWrites(service, occurrences)

  app.post(
    base,
    { schema: { tags, summary: `Create ${a(one)}`, body: def.schemas.create, response: { 201: withEtag(Single(Record)) } } },
    async (request, reply) => {
      reply.code(201)
      return tagged(reply, service.create(request.userId, resource, request.body, { source: request.svcSource }))
    },
  )

  app.get(
    base,
    {
      schema: {
        tags,
        summary: `List ${def.name}`,
        description: `Paged, sorted and filtered; \`search\` runs a full-text search. Deleted ${def.name} are left out unless \`include_deleted\` or \`only_deleted\`; \`format=compact\` answers the short form.`,
        querystring: listQuerySchema(def),
        response: { 200: ListOf(item) },
      },
    },
    (request) => service.listPaced(request.userId, resource, request.query as ListQuery, { bytes: request.answerBudget }),
  )

  app.get(
    `${base}/:id`,
    {
      schema: {
        tags,
        summary: `Get ${a(one)}`,
        params: IdParams,
        querystring: Type.Object({ include_deleted: Type.Boolean({ default: false }) }),
        response: { 200: withEtag(Single(Record)) },
      },
    },
    // Synchronous: the pipeline envelopes a plain return without a promise (the hottest read).
    (request, reply) =>
      tagged(reply, service.get(request.userId, resource, request.params.id, { includeDeleted: request.query.include_deleted })),
  )

  app.patch(
    `${base}/:id`,
    {
      schema: {
        tags,
        summary: `Update ${a(one)}`,
        description: 'Only the fields sent change; `custom_fields` sent here replaces the whole object (see the custom route to merge).',
        params: IdParams,
        headers: ConditionalHeaders,
        ...(occurrences ? { querystring: OccurrenceQuery } : {}),
        body: def.schemas.patch,
        response: { 200: withEtag(Single(Record)) },
      },
      config: { errors: occurrences ? ['PRECONDITION_FAILED', 'UNPROCESSABLE'] : ['PRECONDITION_FAILED'] },
    },
    async (request, reply) =>
      tagged(
        reply,
        writes.update(
          request.userId,
          resource,
          request.params.id,
          request.body,
          (request.query ?? {}) as OccurrenceChoice,
          ifMatchOf(request),
        ),
      ),
  )

  app.patch(
    `${base}/:id/custom`,
    {
      schema: {
        tags,
        summary: `Merge custom fields into ${a(one)}`,
        description: 'Keys sent are set; a key sent as null is removed; other keys stay.',
        params: IdParams,
        headers: ConditionalHeaders,
        body: CustomFields,
        response: { 200: withEtag(Single(Record)) },
      },
      config: { errors: ['PRECONDITION_FAILED'] },
    },
    async (request, reply) =>
      tagged(reply, service.mergeCustom(request.userId, resource, request.params.id, request.body, ifMatchOf(request))),
  )

  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags,
        summary: `Delete ${a(one)}`,
        description: `A soft delete by default: the ${one} is kept with \`deleted_at\` set and can be restored. \`permanent=true\` erases it and answers its id only.`,
        params: IdParams,
        headers: ConditionalHeaders,
        querystring: Type.Object({ permanent: Type.Boolean({ default: false }), ...(occurrences ? OccurrenceQuery.properties : {}) }),
        response: { 200: withEtag(Single(Type.Union([Record, Type.Object({ id: Uuid })]))) },
      },
      config: { errors: occurrences ? ['PRECONDITION_FAILED', 'UNPROCESSABLE'] : ['PRECONDITION_FAILED'] },
    },
    async (request, reply) => tagged(reply, writes.remove(request.userId, resource, request.params.id, request.query, ifMatchOf(request))),
  )

  // The definition's own state changes (a task's complete and reopen), each answering the record.
  for (const [action, spec] of Object.entries(def.actions ?? {})) {
    app.post(
      `${base}/:id/${action}`,
      {
        schema: {
          tags,
          summary: spec.summary,
          ...(spec.description ? { description: spec.description } : {}),
          params: IdParams,
          headers: ConditionalHeaders,
          response: { 200: withEtag(Single(Record)) },
        },
        config: { errors: ['PRECONDITION_FAILED'] },
      },
      async (request, reply) => tagged(reply, service.act(request.userId, resource, request.params.id, action, ifMatchOf(request))),
    )
  }

  app.post(
    `${base}/:id/restore`,
    {
      schema: {
        tags,
        summary: `Restore a deleted ${one}`,
        params: IdParams,
        headers: ConditionalHeaders,
        response: { 200: withEtag(Single(Record)) },
      },
      config: { errors: ['PRECONDITION_FAILED'] },
    },
    async (request, reply) => tagged(reply, service.restore(request.userId, resource, request.params.id, ifMatchOf(request))),
  )
}
