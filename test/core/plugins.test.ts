import t from 'tap'
import { auth, build, owner } from '../helper.js'

const DIR = new URL('../third-party/', import.meta.url).pathname

t.test('third-party plugins: the example loads, a broken one is dropped, a future one refused', async (t) => {
  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: DIR, HEARTH_HELLO_GREETING: 'Hoi' } })
  const report = Object.fromEntries(app.hearth.plugins.map((p) => [p.name, p]))
  t.equal(report.hello?.status, 'loaded')
  t.equal(report.broken?.status, 'failed')
  t.match(report.broken?.reason, /failed on purpose/)
  t.equal(report.future?.status, 'failed')
  t.match(report.future?.reason, /targets plugin API \^2\.0\.0/)

  const o = await owner(app)
  const hello = await app.inject({ method: 'GET', url: '/api/v1/hello', headers: auth(o.token) })
  t.same(hello.json().data, { greeting: 'Hoi', users_seen: 1 }, 'config slice from its env variable; reacted to user.created')
  const broken = await app.inject({ method: 'GET', url: '/api/v1/broken', headers: auth(o.token) })
  t.equal(broken.statusCode, 503, 'routes of a failed plugin answer 503')
  const future = await app.inject({ method: 'GET', url: '/api/v1/future', headers: auth(o.token) })
  t.equal(future.statusCode, 404, 'a refused plugin registers nothing')
  const health = await app.inject({ method: 'GET', url: '/api/v1/health' })
  t.equal(health.statusCode, 200, 'the daemon keeps running')
})

t.test('plugin migrations are applied once and recorded', async (t) => {
  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: DIR } })
  const rows = app.hearth.db
    .prepare("SELECT plugin, version, name FROM schema_migrations WHERE plugin IN ('core', 'hello') ORDER BY plugin")
    .all()
  t.same(rows, [
    { plugin: 'core', version: 1, name: 'init' },
    { plugin: 'core', version: 2, name: 'dav-scope' },
    { plugin: 'core', version: 3, name: 'key-maker' },
    { plugin: 'core', version: 4, name: 'second-factor' },
    { plugin: 'core', version: 5, name: 'passkeys' },
    { plugin: 'hello', version: 1, name: 'init' },
  ])
})

t.test('a bad plugin config value is refused with its variable name', async (t) => {
  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: DIR, HEARTH_HELLO_GREETING: '' } })
  t.equal(app.hearth.plugins.find((p) => p.name === 'hello')?.status, 'loaded', 'empty means unset: the default applies')
})

t.test('HEARTH_DISABLED_PLUGINS: a built-in plugin and a third-party one are not loaded, their routes are gone', async (t) => {
  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: DIR, HEARTH_DISABLED_PLUGINS: 'storage, hello' } })
  const report = Object.fromEntries(app.hearth.plugins.map((p) => [p.name, p]))
  t.match(report.storage, { status: 'disabled', source: 'builtin', reason: /HEARTH_DISABLED_PLUGINS/ })
  t.match(report.hello, { status: 'disabled', source: 'third-party' })
  t.equal(report.records?.status, 'loaded', 'the others load')
  const o = await owner(app)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/hal/storage/disks', headers: auth(o.token) })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/hello', headers: auth(o.token) })).statusCode, 404)
  const doc = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
  t.notOk(doc.paths['/api/v1/hal/storage/disks'], 'nor documented')
  const health = (await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data
  t.equal(health.components.storage.status, 'disabled')
})

t.test('a plugin that needs a disabled one is not loaded either; a bad name stops the start', async (t) => {
  const { definePlugin } = await import('../../core/plugin-api.js')
  const base = definePlugin({ name: 'base', version: '1.0.0', apiVersion: '^1.0.0' }, async () => {})
  const child = definePlugin({ name: 'child', version: '1.0.0', apiVersion: '^1.0.0', dependencies: ['base'] }, async () => {})
  const app = await build(t, { plugins: [base, child], env: { HEARTH_DISABLED_PLUGINS: 'base' } })
  t.match(
    app.hearth.plugins.find((p) => p.name === 'child'),
    { status: 'disabled', reason: /needs the disabled plugin base/ },
  )
  await t.rejects(build(t, { env: { HEARTH_DISABLED_PLUGINS: 'Not A Name' } }), /HEARTH_DISABLED_PLUGINS/)
})
