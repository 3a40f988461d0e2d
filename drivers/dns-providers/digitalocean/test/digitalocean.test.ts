import t from 'tap'
import digitalocean from '../index.js'
import { providerContract } from '../../test/contract.js'
import { startDigitalOcean } from './server.js'

const token = 'dop_v1_4b0d1c0ffee5ca1ab1e0ddba11'

providerContract(t, {
  module: digitalocean,
  credentials: { api_token: token },
  badCredentials: { api_token: 'dop_v1_revoked0000' },
  start: (zones) => startDigitalOcean(token, zones),
  extraZones: 25,
  seededRecords: 45,
})

t.test('digitalocean: wire format', async (t) => {
  const fake = await startDigitalOcean(token, { 'example.com': [] }, 2)
  t.teardown(() => fake.close())
  const driver = digitalocean.create({ baseUrl: fake.url, credentials: { api_token: token } })
  const zone = { id: 'example.com', name: 'example.com' }
  await driver.createRecord(zone, {
    type: 'CAA',
    name: '@',
    content: '0 issue "letsencrypt.org"',
    ttl: 1800,
    priority: null,
    proxied: false,
  })
  const post = fake.requests.at(-1)
  t.equal(post?.path, '/domains/example.com/records')
  t.equal(post?.headers.authorization, `Bearer ${token}`)
  t.same(
    JSON.parse(post?.body ?? '{}'),
    { type: 'CAA', name: '@', ttl: 1800, data: 'letsencrypt.org', flags: 0, tag: 'issue' },
    'CAA parts as DigitalOcean fields',
  )
  await driver.createRecord(zone, { type: 'CNAME', name: 'www', content: 'example.com', ttl: 1800, priority: null, proxied: false })
  t.equal(JSON.parse(fake.requests.at(-1)?.body ?? '{}').data, 'example.com.', 'host names written fully qualified with a dot')
  fake.requests.length = 0
  const records = await driver.listRecords(zone)
  t.equal(records.length, 2, 'SOA skipped, both records read')
  t.same(
    fake.requests.map((r) => r.query.get('page')),
    ['1', '2'],
    'links.pages.next followed',
  )
})
