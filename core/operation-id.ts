/**
 * A route's stable OpenAPI operationId, derived from its method and path so
 * that it is never typed twice: `<resource>.<verb>`, the resource being the
 * camelCased fixed segments of the path after /api/v1.
 *
 *   GET    /notes                        notes.list       (a paged list)
 *   POST   /notes                        notes.create     (answers 201)
 *   GET    /notes/:id                    notes.get        (also replace, update, delete)
 *   POST   /notes/:id/archive            notes.archive    (an action)
 *   GET    /auth/status                  auth.getStatus   (a sub-resource read)
 *   GET    /dns/zones/:id/records        dnsZonesRecords.list
 */
const VERB: Record<string, string> = { GET: 'get', PUT: 'replace', PATCH: 'update', DELETE: 'delete', POST: 'create' }

const isParam = (segment: string) => segment.startsWith(':') || segment.startsWith('{')
const camel = (word: string) => word.replace(/[-_.]+([a-z0-9])/gi, (_, c: string) => c.toUpperCase())
const pascal = (word: string) => camel(word).replace(/^./, (c) => c.toUpperCase())
const resource = (words: string[]) =>
  words
    .map(pascal)
    .join('')
    .replace(/^./, (c) => c.toLowerCase()) || 'root'

export function operationIdOf(method: string, url: string, answers: { list: boolean; creates: boolean }): string {
  const segments = url
    .replace(/^\/api\/v1(?=\/|$)/, '')
    .split('/')
    .filter(Boolean)
  const words = segments.filter((s) => !isParam(s))
  const verb = VERB[method] ?? method.toLowerCase()
  if (answers.list && method === 'GET') return `${resource(words)}.list`
  if (answers.creates && method === 'POST') return `${resource(words)}.create`
  const last = segments.at(-1)
  if (last === undefined || isParam(last) || words.length <= 1) return `${resource(words)}.${verb}`
  const action = method === 'POST' ? camel(last) : `${verb}${pascal(last)}`
  return `${resource(words.slice(0, -1))}.${action}`
}
