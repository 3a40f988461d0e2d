import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import t from 'tap'
import { builtinPlugins } from '../../core/builtin-plugins.js'
import { definePlugin, PLUGIN_API_VERSION, type HearthApi } from '../../core/plugin-api.js'
import { compileNow } from '../../core/validation.js'
import { build } from '../helper.js'

// Validators and serializers are compiled on a route's first request (core/validation.ts), not at
// start: a schema Ajv or fast-json-stringify rejects would only fail when that route is called. Here
// every documented route of the core and the built-in plugins has its request schemas compiled with
// the daemon's validators and its response schemas with Fastify's serializer compiler.
t.test('every route’s schemas compile', async (t) => {
  let api: HearthApi | undefined
  const probe = definePlugin({ name: 'schema-probe', version: '1.0.0', apiVersion: `^${PLUGIN_API_VERSION}` }, async (_app, given) => {
    api = given
  })
  const app = await build(t, { plugins: [...(await builtinPlugins()), probe] })
  const doc = app.swagger() as { paths: Record<string, Record<string, { operationId?: string }>> }
  const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => (op.operationId ? [op.operationId] : [])))
  t.ok(ids.length > 100, `${ids.length} operations`)
  const serializer = SerializerSelector()({}, {})
  let compiled = 0
  for (const id of ids) {
    const route = api?.routes.get(id)
    if (!route) {
      t.fail(`${id}: not in the route table`)
      continue
    }
    for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
      const schema = route.schema[part]
      if (!schema) continue
      t.doesNotThrow(() => compileNow(schema as object, part), `${id} ${part}`)
      compiled++
    }
    for (const [status, schema] of Object.entries(route.schema.response ?? {})) {
      t.doesNotThrow(
        () => serializer({ schema, method: route.method, url: route.url, httpStatus: status } as never),
        `${id} response ${status}`,
      )
      compiled++
    }
  }
  t.ok(compiled > ids.length, `${compiled} schemas compiled`)
})
