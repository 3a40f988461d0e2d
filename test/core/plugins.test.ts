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
    { plugin: 'hello', version: 1, name: 'init' },
  ])
})

t.test('a bad plugin config value is refused with its variable name', async (t) => {
  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: DIR, HEARTH_HELLO_GREETING: '' } })
  t.equal(app.hearth.plugins.find((p) => p.name === 'hello')?.status, 'loaded', 'empty means unset: the default applies')
})
