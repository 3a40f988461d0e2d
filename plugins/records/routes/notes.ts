import { IdParams, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { ConditionalHeaders, ifMatchOf, tagged, withEtag } from './conditional.js'
import type { RecordsService } from '../service.js'

/**
 * The note-only state change (api.md, Note archive): both answer the note with its ETag and
 * honour If-Match; a change emits note.updated.
 */
export async function noteArchiveRoutes(app: PluginInstance, { service }: { service: RecordsService }): Promise<void> {
  const schema = {
    tags: ['notes'],
    params: IdParams,
    headers: ConditionalHeaders,
    response: { 200: withEtag(Single(service.definition('notes').schemas.record)) },
  }
  const config = { errors: ['PRECONDITION_FAILED'] }
  app.post('/notes/:id/archive', { schema: { ...schema, summary: 'Archive a note' }, config }, async (request, reply) =>
    tagged(reply, service.setArchived(request.userId, request.params.id, true, ifMatchOf(request))),
  )
  app.post(
    '/notes/:id/unarchive',
    { schema: { ...schema, summary: 'Bring a note back from the archive' }, config },
    async (request, reply) => tagged(reply, service.setArchived(request.userId, request.params.id, false, ifMatchOf(request))),
  )
}
