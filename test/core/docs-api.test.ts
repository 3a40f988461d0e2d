import { readFileSync } from 'node:fs'
import t from 'tap'
import { openApiDocument } from '../../scripts/openapi/document.js'
import { canonical, documentOperations, routesInProse, written } from '../../scripts/openapi/routes-index.js'

/**
 * docs/api.md says only what the daemon serves: every route it names is in the OpenAPI document,
 * and every operation of the document is named there (its "Every route" index at least).
 */
const markdown = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8')

t.test('docs/api.md and the OpenAPI document name the same routes', async (t) => {
  const ops = documentOperations((await openApiDocument()) as never)
  t.ok(ops.length > 50, `the document has its operations (${ops.length})`)
  const inDocument = new Set(ops.map((o) => o.route))
  const inProse = routesInProse(markdown)
  const claimed = [...inProse].filter((r) => !inDocument.has(r)).map(written)
  t.same(claimed, [], 'routes docs/api.md names that the document lacks (remove them, or serve them)')
  const missing = ops.filter((o) => !inProse.has(o.route)).map((o) => `- \`${written(o.route)}\`: ${o.summary}`)
  t.same(missing, [], 'operations docs/api.md does not name: add these lines to its "Every route" index')
})

t.test('the reading of the prose: prefixes, parameters, alternatives and what is served outside the document', async (t) => {
  t.same(
    [
      ...routesInProse(
        'See `GET /{notes,contacts}/:id`, then POST /api/v1/auth/login. GET /metrics and PROPFIND /dav/ too; PATCH /custom.',
      ),
    ],
    ['GET /api/v1/notes/{id}', 'GET /api/v1/contacts/{id}', 'POST /api/v1/auth/login'],
  )
  t.equal(canonical('DELETE /admin/api-keys/:id'), 'DELETE /api/v1/admin/api-keys/{id}')
  t.equal(written('GET /api/v1/notes/{id}'), 'GET /notes/:id')
})
