import t from 'tap'
import { operationIdOf } from '../../core/operation-id.js'
import { VERSION } from '../../core/app.js'
import { auth, build, owner } from '../helper.js'

interface Operation {
  operationId?: string
  summary?: string
  description?: string
  security?: Array<Record<string, string[]>>
  responses: Record<string, { description: string; content?: Record<string, { schema?: unknown; example?: unknown }> }>
  requestBody?: { content: Record<string, { schema?: unknown; example?: unknown }> }
  'x-hearth-tier'?: string
  'x-hearth-role'?: string
  'x-hearth-scope'?: string
}
type Doc = {
  info: { version: string; license?: { name: string } }
  paths: Record<string, Record<string, Operation>>
  components: { securitySchemes: Record<string, { type: string; scheme: string }>; schemas: Record<string, unknown> }
  tags: Array<{ name: string; description: string }>
}

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))

t.test('operationId: derived once from the method and the path', async (t) => {
  const cases: Array<[string, string, { list?: boolean; creates?: boolean }, string]> = [
    ['GET', '/api/v1/notes', { list: true }, 'notes.list'],
    ['POST', '/api/v1/notes', { creates: true }, 'notes.create'],
    ['GET', '/api/v1/notes/:id', {}, 'notes.get'],
    ['PATCH', '/api/v1/notes/:id', {}, 'notes.update'],
    ['DELETE', '/api/v1/notes/:id', {}, 'notes.delete'],
    ['POST', '/api/v1/notes/:id/archive', {}, 'notes.archive'],
    ['GET', '/api/v1/dns/zones/:id/records', { list: true }, 'dnsZonesRecords.list'],
    ['PUT', '/api/v1/dns/zones/:id/records/:recordId', {}, 'dnsZonesRecords.replace'],
    ['POST', '/api/v1/dns/zones', { creates: true }, 'dnsZones.create'],
    ['GET', '/api/v1/auth/status', {}, 'auth.getStatus'],
    ['POST', '/api/v1/auth/forgot-password', {}, 'auth.forgotPassword'],
    ['GET', '/api/v1/health', {}, 'health.get'],
  ]
  for (const [method, url, answers, id] of cases)
    t.equal(operationIdOf(method, url, { list: false, creates: false, ...answers }), id, `${method} ${url}`)
})

t.test('the document: every operation named, summarised, secured, with its answers', async (t) => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Doc
  const ops = operations(doc)
  t.ok(ops.length >= 90, `${ops.length} operations`)
  const ids = ops.map((o) => o.op.operationId)
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
  for (const { path, method, op } of ops) {
    const where = `${method.toUpperCase()} ${path}`
    t.match(op.operationId, /^[a-z][A-Za-z0-9]*\.[a-z][A-Za-z0-9]*$/, `${where}: operationId ${op.operationId}`)
    t.ok(op.summary && op.summary.length <= 100 && !op.summary.includes('\n'), `${where}: a one-line summary`)
    t.ok(
      Object.keys(op.responses).some((s) => s.startsWith('2')),
      `${where}: declares its success`,
    )
    t.ok(op.responses['500'], `${where}: documents 500`)
    t.ok(Array.isArray(op.security), `${where}: security stated`)
  }

  t.equal(doc.info.version, VERSION, 'info.version is the daemon version (a version bump changes the document)')
  const health = await app.inject({ method: 'GET', url: '/api/v1/health' })
  t.equal(health.headers['x-svc-version'], doc.info.version, 'the same version the daemon announces')
  t.equal(doc.info.license?.name, 'MIT')
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'systemToken', 'userToken'], 'the three auth mechanisms')

  const login = doc.paths['/api/v1/auth/login']?.post as Operation
  t.same(login.security, [], 'a public route is marked public')
  t.match(login.description, /Public/)
  t.match(login.responses['429']?.description, /RATE_LIMITED/, 'the throttle of login is documented')

  const notesCreate = doc.paths['/api/v1/notes']?.post as Operation
  t.same(notesCreate.security?.length, 3, 'a records route takes all three mechanisms')
  t.equal(notesCreate['x-hearth-scope'], 'records')
  t.match(notesCreate.responses['400']?.description, /VALIDATION_ERROR/)
  t.ok(notesCreate.requestBody?.content['application/json']?.example, 'a request example for notes')
  t.ok(notesCreate.responses['201']?.content?.['application/json']?.example, 'a response example for notes')

  const keys = doc.paths['/api/v1/admin/api-keys']?.post as Operation
  t.equal(keys['x-hearth-role'], 'admin')
  t.match(keys.responses['403']?.description, /FORBIDDEN/, 'an admin route documents FORBIDDEN')
  t.match(keys.description, /Role/)

  const subdomain = doc.paths['/api/v1/proxy/subdomain']?.post as Operation
  t.equal(subdomain['x-hearth-tier'], 'pro', 'a pro route is marked')
  t.match(subdomain.responses['403']?.description, /FEATURE_NOT_AVAILABLE/)

  const zone = doc.paths['/api/v1/dns/zones']?.post as Operation
  t.match(zone.responses['502']?.description, /PROVIDER_ERROR/, "a plugin's own error code is documented")

  const imported = doc.paths['/api/v1/contacts/import']?.post as Operation
  t.ok(imported.requestBody?.content['multipart/form-data'], 'an upload documents its multipart body')
  const exported = doc.paths['/api/v1/events/export']?.get as Operation
  t.ok(exported.responses['200']?.content?.['text/calendar'], 'a file export documents its media type')

  const used = new Set(ops.flatMap((o) => (o.op as { tags?: string[] }).tags ?? []))
  for (const tag of used)
    t.ok(
      doc.tags.find((x) => x.name === tag && x.description !== tag),
      `tag ${tag} is described`,
    )

  const docsPage = await app.inject({ method: 'GET', url: '/api/v1/docs/' })
  t.equal(docsPage.statusCode, 200, 'the docs page is served')
  const shown = (await app.inject({ method: 'GET', url: '/api/v1/docs/json' })).json()
  t.same(shown, doc, 'the docs page shows the same document')
})

t.test('the contract is checked when a route registers', async (t) => {
  const { definePlugin } = await import('../../core/plugin-api.js')
  const twin = definePlugin({ name: 'twin', version: '1.0.0', apiVersion: '^1.0.0' }, async (app) => {
    app.get('/a', { schema: { operationId: 'health.get', summary: 'x' } }, async () => ({}))
  })
  await t.rejects(
    build(t, { plugins: [twin] }),
    /operationId health.get .* already used by GET \/api\/v1\/health/,
    'a second route cannot take an id',
  )
  const unknown = definePlugin({ name: 'unknowns', version: '1.0.0', apiVersion: '^1.0.0' }, async (app) => {
    app.get('/a', { config: { errors: ['NO_SUCH_CODE'] } }, async () => ({}))
  })
  await t.rejects(build(t, { plugins: [unknown] }), /NO_SUCH_CODE is not in the catalogue/)
})

t.test('a route answers the envelope its schema documents', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const doc = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Doc
  const listSchema = doc.paths['/api/v1/notes']?.get?.responses['200']?.content?.['application/json']?.schema as {
    properties: Record<string, unknown>
  }
  t.same(Object.keys(listSchema.properties).sort(), ['data', 'meta', 'tier'])
  const list = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(o.token) })
  t.same(Object.keys(list.json()).sort(), ['data', 'meta', 'tier'])
})

t.test('the examples are what the API answers', async (t) => {
  const { examples } = await import('../../plugins/records/resources/examples.js')
  const app = await build(t)
  const o = await owner(app)
  for (const [resource, example] of Object.entries(examples)) {
    const res = await app.inject({ method: 'POST', url: `/api/v1/${resource}`, headers: auth(o.token), payload: example.create })
    t.equal(res.statusCode, 201, `${resource}: the create example is accepted`)
    const answered = res.json().data as Record<string, unknown>
    t.same(Object.keys(answered).sort(), Object.keys(example.record).sort(), `${resource}: the record example has the fields answered`)
    const stable = (r: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(r).filter(([k]) => !['id', 'owner_id', 'created_at', 'updated_at'].includes(k)))
    t.same(stable(answered), stable(example.record), `${resource}: and the values the API gives that body`)
  }
})
