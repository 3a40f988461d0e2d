import multipart from '@fastify/multipart'
import { Type } from '@sinclair/typebox'
import { type EventBus, HttpError, type PluginInstance, readUploadedFile, Single, StringEnum, Uuid } from '../../../core/plugin-api.js'
import { pacedStream } from '../../../lib/paced-stream.js'
import { codecs, type ExportSource, FileFormatError, FileTooLargeError } from '../formats/codecs.js'
import type { ParseFailure, ParseResult } from '../formats/types.js'
import type { EventOccurrences, ImportEntry } from '../resources/event-occurrences.js'
import { importTasks, type TaskImportEntry } from '../resources/task-import.js'
import { type ContactImportEntry, importContacts } from '../resources/contact-import.js'
import type { ContactPhotos } from '../resources/contact-photos.js'
import type { ApiRecord, ImportResult as ImportOutcome, RecordsService, ResourceName } from '../service.js'

/**
 * GET /{notes,contacts,events}/export and POST /{...}/import (multipart):
 * Markdown zip, vCard 4.0/3.0 and iCalendar, through the formats/ codecs and
 * the service's importMany (good entries in one transaction, bad ones reported). An export is
 * streamed: records are read a batch at a time and the event loop is given back as it is written.
 */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024

const Failure = Type.Object({
  index: Type.Optional(Type.Integer({ description: '0-based position of the entry in the file' })),
  line: Type.Optional(Type.Integer({ description: '1-based line where the entry starts' })),
  file: Type.Optional(Type.String({ description: 'archive member (Markdown imports)' })),
  error: Type.String(),
  details: Type.Optional(Type.Object({}, { additionalProperties: true })),
})
const ImportResult = Type.Object({ imported: Type.Integer(), ids: Type.Array(Uuid), failed: Type.Array(Failure) })

type Exported = keyof typeof codecs

const exportQuery = (resource: Exported) =>
  Type.Object({
    format: Type.Optional(StringEnum(codecs[resource].formats)),
    ...(resource === 'contacts' ? { version: Type.Optional(StringEnum(['4.0', '3.0'] as const)) } : {}),
  })

/** ids listed in an `<record>.imported` event at most: one realtime message must stay far below a client's buffer. */
export const MAX_EVENT_IDS = 1000

export interface ImportExportDeps {
  service: RecordsService
  occurrences: EventOccurrences
  photos: ContactPhotos
  events: Pick<EventBus, 'emit'>
  now?: () => number
}

export async function importExportRoutes(app: PluginInstance, { service, occurrences, photos, events, now = Date.now }: ImportExportDeps) {
  // Multipart parsing stays inside this scope: the JSON routes keep refusing other content types.
  await app.register(async (scope: PluginInstance) => {
    await scope.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 20 } })
    for (const resource of Object.keys(codecs) as Exported[]) {
      const codec = codecs[resource]
      const tags = [resource]

      scope.get(
        `/${resource}/export`,
        {
          schema: {
            tags,
            summary: `Export every ${resource.slice(0, -1)} as ${codec.kind}`,
            querystring: exportQuery(resource),
            response: {
              200: {
                description: `The file (${codec.kind}), as an attachment`,
                content: { [codec.mediaType]: { schema: { type: 'string', format: 'binary' } } },
              },
            },
          },
          config: { envelope: 'none' },
        },
        async (request, reply) => {
          const { version } = request.query as { version?: '4.0' | '3.0' }
          const file = codec.write(exportSource(service, request.userId, resource, photos), { version, now: now() })
          reply.header('content-type', file.contentType)
          reply.header('content-disposition', `attachment; filename="${file.filename}"`)
          return reply.send(pacedStream(file.body))
        },
      )

      scope.post(
        `/${resource}/import`,
        {
          config: { upload: 'file', errors: ['VALIDATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'] },
          schema: {
            tags,
            summary: `Import ${resource} from ${codec.kind}`,
            description: `Upload the file as multipart/form-data, field \`file\` (at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB). Good entries are imported in one transaction; the others are reported in \`failed\` with where they are in the file.`,
            response: { 200: Single(ImportResult) },
          },
        },
        async (request) => {
          const upload = await readUploadedFile(request, { what: 'the file', maxBytes: MAX_UPLOAD_BYTES })
          let parsed: ParseResult<unknown>
          try {
            parsed = codec.read(upload.bytes, upload.filename, { zone: service.timezone })
          } catch (err) {
            if (err instanceof FileTooLargeError) throw new HttpError('PAYLOAD_TOO_LARGE', err.message)
            if (err instanceof FileFormatError)
              throw new HttpError('VALIDATION_ERROR', err.message, { field: 'file', constraint: 'format' })
            throw err
          }
          const userId = request.userId
          const opts = { source: request.svcSource ?? 'import', emit: false }
          // Events link their overridden occurrences (RECURRENCE-ID) to the series of the same file.
          const result =
            resource === 'events'
              ? occurrences.importAll(userId, parsed.entries as ImportEntry[], opts)
              : resource === 'tasks'
                ? importTasks(service, userId, parsed.entries as TaskImportEntry[], opts)
                : resource === 'contacts'
                  ? await importContacts(service, photos, userId, parsed.entries as ContactImportEntry[], opts)
                  : service.importMany(
                      userId,
                      resource,
                      parsed.entries.map((e) => (e.properties?.length ? { ...(e.record as object), properties: e.properties } : e.record)),
                      opts,
                    )
          const ids = result.created.map((r) => r.id)
          if (ids.length > 0) {
            // One summary event instead of a created event per record: a 20,000-contact import
            // must not burst 20 MB at every realtime client (each would overflow its buffer and be dropped).
            const data = { count: ids.length, ids: ids.slice(0, MAX_EVENT_IDS), ids_truncated: ids.length > MAX_EVENT_IDS }
            events.emit(`${service.definition(resource).singular}.imported`, { userId, at: new Date(now()).toISOString(), data })
          }
          return { imported: ids.length, ids, failed: failures(parsed, result.failed) }
        },
      )
    }
  })
}

/** A user's records of one resource as an export reads them: in batches, with the lines imports kept. */
function exportSource(service: RecordsService, userId: string, resource: ResourceName, photos: ContactPhotos): ExportSource {
  const batches = () => service.batches(userId, resource, { rows: 8 })
  return {
    // A contact's photo is read with its batch (8 JPEGs of at most 512×512 at once).
    batches: resource === 'contacts' ? () => withPhotos(batches(), photos) : batches,
    properties: (ids) => service.propertiesOf(userId, resource, ids),
    get(id) {
      try {
        return service.get(userId, resource, id)
      } catch (err) {
        if (err instanceof HttpError && err.statusCode === 404) return undefined
        throw err
      }
    },
  }
}

function* withPhotos(batches: Iterable<ApiRecord[]>, photos: ContactPhotos): Generator<ApiRecord[]> {
  for (const batch of batches) yield batch.map((r) => (r.has_photo ? { ...r, photo: photos.bytesOf(r) } : r))
}

/** Parse failures and the entries the service refused, located in the file, in file order. */
function failures(parsed: ParseResult<unknown>, refused: ImportOutcome['failed']): Array<ParseFailure & { details?: object }> {
  const rejected = refused.map(({ index, error }) => {
    const { index: at, line, file } = parsed.entries[index]
    return {
      index: at,
      ...(line ? { line } : {}),
      ...(file ? { file } : {}),
      error: error.message,
      ...(error.details ? { details: error.details } : {}),
    }
  })
  return [...parsed.failed, ...rejected].sort(byPosition)
}

/** Report order: entries by index, stray lines (no index) by line. */
function byPosition(a: ParseFailure, b: ParseFailure): number {
  return (a.index ?? -1) - (b.index ?? -1) || (a.line ?? 0) - (b.line ?? 0)
}
