import t from 'tap'
import cloudflare from '../index.js'
import { providerContract } from '../../test/contract.js'
import { startCloudflare } from './server.js'

const token = 'cf-token-Y3J5cHRpYy1zZWNyZXQ'

providerContract(t, {
  module: cloudflare,
  credentials: { api_token: token },
  badCredentials: { api_token: 'cf-token-revoked-000000' },
  start: (zones) => startCloudflare(token, zones),
  extraZones: 60,
  seededRecords: 130,
})

t.test('cloudflare: wire format', async (t) => {
  const fake = await startCloudflare(token, { 'example.com': [] })
  t.teardown(() => fake.close())
  const driver = cloudflare.create({ baseUrl: fake.url, credentials: { api_token: token } })
  const [zone] = await driver.listZones()
  t.match(zone?.id, /^[0-9a-f]{32}$/, 'zones are addressed by their Cloudflare id')
  await driver.createRecord(zone as { id: string; name: string }, {
    type: 'SRV',
    name: '_sip._tcp',
    content: '5 5060 sip.example.com',
    ttl: 120,
    priority: 10,
    proxied: false,
  })
  const post = fake.requests.find((r) => r.method === 'POST')
  t.equal(post?.path, `/zones/${zone?.id}/dns_records`)
  t.equal(post?.headers.authorization, `Bearer ${token}`, 'Bearer token')
  t.same(
    JSON.parse(post?.body ?? '{}'),
    {
      type: 'SRV',
      name: '_sip._tcp.example.com',
      ttl: 120,
      proxied: false,
      data: { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' },
    },
    'SRV written through data, name fully qualified',
  )
  const list = fake.requests.find((r) => r.method === 'GET' && r.path.endsWith('/dns_records'))
  t.notOk(list, 'nothing listed yet')
  await driver.listRecords(zone as { id: string; name: string })
  const get = fake.requests.find((r) => r.method === 'GET' && r.path.endsWith('/dns_records'))
  t.equal(get?.query.get('page'), '1')
  t.equal(get?.query.get('per_page'), '100')
})
