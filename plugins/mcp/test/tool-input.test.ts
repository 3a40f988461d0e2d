import t from 'tap'
import { type RouteEntry, Type } from '../../../core/plugin-api.js'
import { deriveInput, toRequest, unknownArgument } from '../tool-input.js'

const route = (schema: RouteEntry['schema'], method = 'PATCH', url = '/api/v1/things/:id'): RouteEntry => ({
  operationId: 'things.update',
  method,
  url,
  schema,
  config: {},
})

t.test('params, query, declared headers and body become one flat input, and split back', async (t) => {
  const entry = route({
    params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
    querystring: Type.Object({ scope: Type.Optional(Type.String()), tag: Type.Optional(Type.Array(Type.String())) }),
    headers: Type.Object({ 'if-match': Type.Optional(Type.String()), authorization: Type.String(), 'x-svc-user-id': Type.String() }),
    body: Type.Object({ title: Type.String(), pinned: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  })
  const { schema, shape } = deriveInput(entry, { extra: { format: { type: 'string' } } })
  t.same(Object.keys(schema.properties ?? {}), ['id', 'scope', 'tag', 'if_match', 'title', 'pinned', 'format'])
  t.same(schema.required, ['id', 'title'])
  t.equal(schema.additionalProperties, false)
  t.notOk(JSON.stringify(schema).includes('authorization'), 'credentials are never arguments')
  t.same(shape, { params: ['id'], query: ['scope', 'tag'], headers: ['if_match'], body: ['title', 'pinned'] })

  const args = { id: 'a/b', tag: ['x', 'y'], if_match: '"v3"', title: 'T' }
  t.same(toRequest(entry, shape, args, { format: 'compact' }), {
    method: 'PATCH',
    url: '/api/v1/things/a%2Fb?tag=x&tag=y&format=compact',
    headers: { 'if-match': '"v3"' },
    body: { title: 'T' },
  })
  t.equal(unknownArgument(shape, { ...args, colour: 1 }), 'colour')
  t.equal(unknownArgument(shape, { ...args, format: 'full' }, ['format']), null)
})

t.test('a free-form body goes whole under bodyAs; query picks and omissions; clashes stop the build', async (t) => {
  const custom = route({ params: Type.Object({ id: Type.String() }), body: Type.Record(Type.String(), Type.Unknown()) })
  const { schema, shape } = deriveInput(custom, { bodyAs: 'custom_fields' })
  t.same(schema.required, ['id', 'custom_fields'])
  t.same(toRequest(custom, shape, { id: 'n1', custom_fields: { a: 1 } }).body, { a: 1 })

  const list = route(
    {
      querystring: Type.Object({
        limit: Type.Integer({ default: 20 }),
        search: Type.Optional(Type.String()),
        format: Type.Optional(Type.String()),
      }),
    },
    'GET',
    '/api/v1/things',
  )
  t.same(Object.keys(deriveInput(list, { omitQuery: ['format'] }).schema.properties ?? {}), ['limit', 'search'])
  t.same(Object.keys(deriveInput(list, { pickQuery: ['search'] }).schema.properties ?? {}), ['search'])
  t.equal(deriveInput(list).schema.required, undefined, 'a parameter with a default is not required')
  t.equal(toRequest(list, deriveInput(list).shape, {}).body, undefined, 'no body for a route without one')

  const clash = route({ params: Type.Object({ id: Type.String() }), body: Type.Object({ id: Type.String() }) })
  t.throws(() => deriveInput(clash), /argument id would come from two places/)
})
