import { Type } from '@sinclair/typebox'
import { IdParams, Limit, ListOf, Offset, type PluginInstance, Single, StringEnum, Timestamp, Uuid } from '../../../core/plugin-api.js'
import type { Shares } from '../sharing/shares.js'

/**
 * POST/GET/PATCH/DELETE /shares: a member opens a collection of theirs to another (docs/api.md
 * "Sharing"). Making, widening and ending a share decides who else reads the member's records: like
 * their keys and password, that is the member's own doing (scope general), not something an API key
 * reaching their records (an agent, a sync service) may do; the shares are read with the records.
 */
const MANAGE = 'general' as const

const Kind = StringEnum(['calendar', 'addressbook', 'tasklist', 'note'] as const)
const Access = StringEnum(['read', 'write'] as const, { description: 'read: GET only; write: create, update, delete and restore too' })

const Share = Type.Object({
  id: Uuid,
  kind: Kind,
  name: Type.Union([Type.String(), Type.Null()], { description: 'the calendar or task list shared' }),
  note_id: Type.Union([Uuid, Type.Null()], { description: 'the note shared' }),
  owner_id: Uuid,
  with_user_id: Uuid,
  access: Access,
  created_at: Timestamp,
})

const NewShare = Type.Object(
  {
    kind: Kind,
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'the calendar (calendar_name) or task list (list_name)' }),
    ),
    note_id: Type.Optional(Type.String({ format: 'uuid', description: 'the note, for kind note' })),
    with: Type.String({ minLength: 1, maxLength: 320, description: 'the member: their user id or email' }),
    access: Access,
  },
  { additionalProperties: false, examples: [{ kind: 'calendar', name: 'Family', with: 'sam@example.org', access: 'write' }] },
)

export async function shareRoutes(app: PluginInstance, { shares }: { shares: Shares }): Promise<void> {
  const tags = ['shares']

  app.post(
    '/shares',
    {
      schema: {
        tags,
        summary: 'Share a collection with another member',
        description:
          'A calendar (name), your address book, a task list (name) or one note (note_id), for reading or writing. Only the owner shares a collection: sharing a note someone shares with you is 403. Sharing with yourself: 400; someone who is not a member: 404; the same collection shared twice with the same member: 409.',
        body: NewShare,
        response: { 201: Single(Share) },
      },
      config: { scope: MANAGE, errors: ['FORBIDDEN', 'NOT_FOUND', 'CONFLICT'] },
    },
    async (request, reply) => {
      reply.code(201)
      return shares.create(request.userId, request.body)
    },
  )

  app.get(
    '/shares',
    {
      schema: {
        tags,
        summary: 'List shares',
        description: 'direction=mine: the shares you made (default); with_me: what other members share with you.',
        querystring: Type.Object(
          { direction: StringEnum(['mine', 'with_me'] as const, { default: 'mine' }), limit: Limit, offset: Offset },
          { additionalProperties: false },
        ),
        response: { 200: ListOf(Share) },
      },
    },
    async (request) => shares.list(request.userId, request.query.direction, request.query.limit, request.query.offset),
  )

  app.patch(
    '/shares/:id',
    {
      schema: {
        tags,
        summary: "Change a share's access",
        description: 'Owner only (its sharee: 403). Takes effect on the next request, event or replay.',
        params: IdParams,
        body: Type.Object({ access: Access }, { additionalProperties: false }),
        response: { 200: Single(Share) },
      },
      config: { scope: MANAGE, errors: ['FORBIDDEN', 'NOT_FOUND'] },
    },
    async (request) => shares.update(request.userId, request.params.id, request.body.access),
  )

  app.delete(
    '/shares/:id',
    {
      schema: {
        tags,
        summary: 'Stop sharing',
        description: 'Owner only (its sharee: 403). The sharee loses the collection at once, everywhere; answers the share as it was.',
        params: IdParams,
        response: { 200: Single(Share) },
      },
      config: { scope: MANAGE, errors: ['FORBIDDEN', 'NOT_FOUND'] },
    },
    async (request) => shares.remove(request.userId, request.params.id),
  )
}
