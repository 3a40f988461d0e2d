import { Type } from '@sinclair/typebox'
import { IdParams, type PluginInstance, Single, StringEnum, Timestamp, Uuid } from '../../../core/plugin-api.js'
import { type freeBusy, MAX_FREE_BUSY_USERS as MAX_USERS } from '../resources/free-busy.js'
import type { RecordsService } from '../service.js'
import { tagged, withEtag } from './conditional.js'

/**
 * The household's calendar together: an attendee answers an invitation (`POST /events/:id/rsvp`),
 * and anyone asks when members are busy (`GET /freebusy`). docs/api.md "Invitations and free/busy".
 */

const Busy = Type.Object({
  user_id: Uuid,
  busy: Type.Array(Type.Object({ start: Timestamp, end: Timestamp })),
})

export async function invitationRoutes(
  app: PluginInstance,
  { service, busy }: { service: RecordsService; busy: ReturnType<typeof freeBusy> },
): Promise<void> {
  app.post(
    '/events/:id/rsvp',
    {
      schema: {
        tags: ['events'],
        summary: 'Answer an invitation',
        description:
          "Sets your own attendee entry's status on the organizer's event (an attendee only: 403 for a reader who is not one, 404 for an event you cannot read). The organizer gets event.updated.",
        params: IdParams,
        body: Type.Object(
          { status: StringEnum(['accepted', 'declined', 'tentative'] as const) },
          { additionalProperties: false, examples: [{ status: 'accepted' }] },
        ),
        response: { 200: withEtag(Single(service.definition('events').schemas.record)) },
      },
      config: { errors: ['FORBIDDEN'] },
    },
    async (request, reply) => tagged(reply, service.answer(request.userId, request.params.id, request.body.status)),
  )

  app.get(
    '/freebusy',
    {
      schema: {
        tags: ['events'],
        summary: "Members' busy times",
        description: `Busy intervals of each member named (at most ${MAX_USERS}) between from and to (at most 366 days): their events and the invitations they have not declined, series expanded; no titles.`,
        querystring: Type.Object(
          {
            users: Type.String({ minLength: 1, maxLength: 40 * MAX_USERS, description: 'member ids, comma-separated' }),
            from: Type.String({ minLength: 10, maxLength: 40, description: 'datetime or YYYY-MM-DD' }),
            to: Type.String({ minLength: 10, maxLength: 40, description: 'datetime or YYYY-MM-DD (a whole day)' }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Single(Type.Array(Busy)) },
      },
      config: { errors: ['NOT_FOUND', 'UNPROCESSABLE'] },
    },
    async (request) => busy.asked(request.query.users, request.query.from, request.query.to),
  )
}
