import { createRequire } from 'node:module'
import t from 'tap'
import { definePlugin, type HearthApi, PLUGIN_API_VERSION } from '../../core/plugin-api.js'
import { build } from '../helper.js'

// Its own file: whether prom-client is loaded is a property of the process, and the other metrics tests scrape.
const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[]
interface Family {
  name: string
  metrics: Array<{ value?: string }>
}
const family = (all: Family[], name: string) => all.find((f) => f.name === name)

t.test('api.metrics.register: checked when registered; prom-client loaded on the first scrape', async (t) => {
  let api: HearthApi | undefined
  const probe = definePlugin({ name: 'probe', version: '1.0.0', apiVersion: `^${PLUGIN_API_VERSION}` }, async (_app, given) => {
    api = given
    given.metrics.register('counter', 'hearth_probe_total', 'Probes', ['kind'], () => [{ labels: { kind: 'a' }, value: 2 }])
  })
  const app = await build(t, { plugins: [probe] })
  const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/node_modules/prom-client/'))
  t.notOk(loaded(), 'not loaded by the start')
  const register =
    (name: string, labels: string[] = [], help = 'Help') =>
    () =>
      api?.metrics.register('gauge', name, help, labels, () => [])
  t.throws(register('hearth_probe_total'), /A metric with the name hearth_probe_total has already been registered/)
  t.throws(register('hearth_http_requests_total'), /already been registered/, 'the request metrics hold their names')
  t.throws(register('hearth-probe'), /Invalid metric name/)
  t.throws(register('hearth_probe_labels', ['no-dash']), /Invalid label name/)
  t.throws(register('hearth_probe_help', [], ''), /Missing mandatory help parameter/)

  const first = parse((await app.inject({ method: 'GET', url: '/metrics' })).body)
  t.ok(loaded(), 'loaded by the first scrape')
  t.equal(family(first, 'hearth_probe_total')?.metrics[0]?.value, '2')
  t.ok(family(first, 'hearth_http_requests_total'))
  // A metric given after the first scrape goes straight into the registry.
  api?.metrics.register('gauge', 'hearth_probe_late', 'Late', [], () => [{ value: 7 }])
  const second = parse((await app.inject({ method: 'GET', url: '/metrics' })).body)
  t.equal(family(second, 'hearth_probe_late')?.metrics[0]?.value, '7')
  t.same(
    second.map((f) => f.name).slice(0, 2),
    ['hearth_http_requests_total', 'hearth_http_request_duration_seconds'],
    'metrics in the order they were given',
  )
})
