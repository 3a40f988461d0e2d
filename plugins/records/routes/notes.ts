import { IdParams, type PluginInstance, Single } from '../../../core/plugin-api.js'
import type { RecordsService } from '../service.js'

/** The note-only state change (api.md, Note archive): both answer the note; a change emits note.updated. */
export async function noteArchiveRoutes(app: PluginInstance, { service }: { service: RecordsService }): Promise<void> {
  const schema = { tags: ['notes'], params: IdParams, response: { 200: Single(service.definition('notes').schemas.record) } }
  app.post('/notes/:id/archive', { schema: { ...schema, summary: 'Archive a note' } }, async (request) =>
    service.setArchived(request.userId, request.params.id, true),
  )
  app.post('/notes/:id/unarchive', { schema: { ...schema, summary: 'Bring a note back from the archive' } }, async (request) =>
    service.setArchived(request.userId, request.params.id, false),
  )
}
