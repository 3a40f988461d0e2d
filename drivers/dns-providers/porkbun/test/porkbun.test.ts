import t from 'tap'
import porkbun from '../index.js'
import { providerContract } from '../../test/contract.js'
import { startPorkbun } from './server.js'

const keys = { apikey: 'pk1_5299b57125c8f3cdf347d2fe', secretapikey: 'sk1_7d119e3f656b00ae042980302e' }

providerContract(t, {
  module: porkbun,
  credentials: keys,
  badCredentials: { apikey: 'pk1_wrong000000', secretapikey: 'sk1_wrong000000' },
  start: (zones) => startPorkbun(keys, zones),
  extraZones: 1000,
  seededRecords: 20,
})

t.test('porkbun: wire format', async (t) => {
  const fake = await startPorkbun(keys, { 'example.com': [] })
  t.teardown(() => fake.close())
  const driver = porkbun.create({ baseUrl: fake.url, credentials: keys })
  const zone = { id: 'example.com', name: 'example.com' }
  const created = await driver.createRecord(zone, {
    type: 'MX',
    name: '@',
    content: 'mail.example.com',
    ttl: 600,
    priority: 20,
    proxied: false,
  })
  t.match(created.id, /^\d+$/)
  const post = fake.requests.at(-1)
  t.equal(post?.method, 'POST')
  t.equal(post?.path, '/dns/create/example.com')
  t.same(
    JSON.parse(post?.body ?? '{}'),
    { ...keys, name: '', type: 'MX', content: 'mail.example.com', ttl: '600', prio: '20' },
    'keys in the body, apex as empty name, strings for ttl and prio',
  )
  await driver.updateRecord(zone, created.id, { type: 'MX', name: '@', content: 'mx2.example.com', ttl: 600, priority: 30, proxied: false })
  t.equal(fake.requests.at(-1)?.path, `/dns/edit/example.com/${created.id}`)
  await driver.deleteRecord(zone, created.id)
  t.equal(fake.requests.at(-1)?.path, `/dns/delete/example.com/${created.id}`)
  t.ok(
    fake.requests.every((r) => !r.path.includes(keys.apikey)),
    'keys never in a path',
  )
})
