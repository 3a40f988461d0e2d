import t from 'tap'
import { definePlugin, ListOf, Single, Type, withJsonText } from '../../core/plugin-api.js'
import { build, owner } from '../helper.js'

/**
 * Plugin API 1.2: `withJsonText` attaches an object's JSON text and `api.serializer` writes it the
 * way response schemas do; the envelope then carries the text as is, but only where the route
 * declares exactly the object's fields: a narrower schema still strips what it does not declare.
 */
const Wide = Type.Object({ id: Type.String(), secret: Type.String() })
const Narrow = Type.Object({ id: Type.String() })

const plugin = definePlugin({ name: 'texts', version: '1.0.0', apiVersion: '^1.2.0' }, async (app, api) => {
  const write = api.serializer(Wide)
  const kept = () => {
    const value = { id: 'a', secret: 's3cret' }
    return withJsonText(value, write(value))
  }
  app.get('/wide', { schema: { response: { 200: Single(Wide) } } }, async () => kept())
  app.get('/narrow', { schema: { response: { 200: Single(Narrow) } } }, async () => kept())
  app.get('/list', { schema: { response: { 200: ListOf(Wide) } } }, async () => ({ items: [kept(), kept()], total: 2 }))
  app.get('/mixed', { schema: { response: { 200: ListOf(Wide) } } }, async () => ({ items: [kept(), { id: 'b', secret: 't' }], total: 2 }))
  // The object's keys in another order than the schema's (a record built column by column): still spliced,
  // since the text is the serializer's (schema order); the marker text shows that the splice was used.
  app.get('/reordered', { schema: { response: { 200: Single(Wide) } } }, async () =>
    withJsonText({ secret: 'x', id: 'a' }, '{"id":"a","secret":"kept"}'),
  )
  // A text that does not match its object would show here: the splice must be the route's own output.
  app.get('/stale', { schema: { response: { 200: Single(Wide) } } }, async () =>
    withJsonText({ id: 'a', secret: 'x' }, '{"id":"a","secret":"x"}'),
  )
})

t.test('kept JSON texts go out as they are, only where the route declares exactly their fields', async (t) => {
  const app = await build(t, { plugins: [plugin] })
  const o = await owner(app)
  const get = async (path: string) =>
    (await app.inject({ url: `/api/v1/texts${path}`, headers: { authorization: `Bearer ${o.token}` } })).body
  t.equal(await get('/wide'), '{"data":{"id":"a","secret":"s3cret"}}')
  t.equal(await get('/narrow'), '{"data":{"id":"a"}}', 'a narrower schema is serialized as declared, the text is not used')
  t.equal(
    await get('/list'),
    '{"data":[{"id":"a","secret":"s3cret"},{"id":"a","secret":"s3cret"}],"meta":{"total":2,"limit":2,"offset":0},"tier":"free"}',
  )
  t.same(
    JSON.parse(await get('/mixed')).data,
    [
      { id: 'a', secret: 's3cret' },
      { id: 'b', secret: 't' },
    ],
    'an item without a text: the whole list is serialized',
  )
  t.equal(await get('/stale'), '{"data":{"id":"a","secret":"x"}}')
  t.equal(await get('/reordered'), '{"data":{"id":"a","secret":"kept"}}', 'the same fields in another order are spliced')
})
