import t from 'tap'
import { build, owner } from '../../../test/helper.js'
import { fixtures } from './providers.js'
import { dnsApi } from './support.js'

/**
 * Proxy zones against each provider's local wire-format server: import on
 * creation, records read and written through the provider (its ids), sync,
 * and the provider's refusals as API errors.
 */
const seeds = [
  { name: '@', type: 'A' as const, content: '192.0.2.1', ttl: 3600 },
  { name: 'www', type: 'A' as const, content: '192.0.2.2', ttl: 3600 },
  { name: '@', type: 'MX' as const, content: 'mail.shop.example', ttl: 3600, priority: 10 },
  { name: '@', type: 'TXT' as const, content: 'v=spf1 mx -all', ttl: 3600 },
]

for (const f of fixtures) {
  t.test(`${f.provider}: proxy zone import, records, sync`, async (t) => {
    const fake = await f.start({ 'shop.example': seeds, 'other.example': [] })
    t.teardown(() => fake.close())
    const app = await build(t, { env: { [f.env]: fake.url } })
    const dns = dnsApi(app, (await owner(app)).token)
    const account = (
      await dns.call('POST', '/provider-accounts', { provider: f.provider, label: 'main', credentials: f.credentials })
    ).json().data

    const missing = await dns.call('POST', '/zones', { zone: 'absent.example', mode: 'proxy', provider_account_id: account.id })
    t.equal(missing.statusCode, 422, 'a zone the account does not hold → 422')
    const stranger = await dns.call('POST', '/zones', {
      zone: 'shop.example',
      mode: 'proxy',
      provider_account_id: '00000000-0000-4000-8000-000000000000',
    })
    t.equal(stranger.statusCode, 422, 'an unknown account → 422')

    const created = await dns.call('POST', '/zones', { zone: 'Shop.Example', mode: 'proxy', provider_account_id: account.id })
    t.equal(created.statusCode, 201, created.body)
    const zone = created.json().data
    t.match(zone, { zone: 'shop.example', mode: 'proxy', provider_account_id: account.id, records_count: seeds.length })
    t.equal((await dns.call('GET', '/provider-accounts')).json().data[0].connected, true, 'creation validated the account')

    const records = (await dns.call('GET', `/zones/${zone.id}/records`)).json().data
    const stored = (fake.state.records('shop.example') ?? []).filter((r) => r.type !== 'SOA')
    t.same(records.map((r: { id: string }) => r.id).sort(), stored.map((r) => r.id).sort(), 'record ids are the provider’s')
    t.ok(
      records.some((r: { name: string; content: string }) => r.name === 'www' && r.content === '192.0.2.2'),
      'records imported',
    )

    const post = await dns.record(zone.id, { type: 'A', name: 'api', content: '198.51.100.7', ttl: 600 })
    t.equal(post.statusCode, 201, post.body)
    const api = post.json().data
    t.ok(
      (fake.state.records('shop.example') ?? []).some((r) => r.id === api.id),
      'created at the provider, under its id',
    )

    const put = await dns.call('PUT', `/zones/${zone.id}/records/${api.id}`, { type: 'A', name: 'api', content: '198.51.100.8', ttl: 600 })
    t.equal(put.statusCode, 200, put.body)
    const updatedId = put.json().data.id
    t.ok(JSON.stringify(fake.state.records('shop.example')).includes('198.51.100.8'), 'updated at the provider')
    t.notOk(JSON.stringify(fake.state.records('shop.example')).includes('198.51.100.7'), 'old value gone at the provider')

    t.equal(
      (await dns.record(zone.id, { type: 'CNAME', name: 'www', content: 'elsewhere.example' })).statusCode,
      422,
      'CNAME rule on proxy zones too',
    )
    const del = await dns.call('DELETE', `/zones/${zone.id}/records/${updatedId}`)
    t.equal(del.statusCode, 200, del.body)
    t.notOk(JSON.stringify(fake.state.records('shop.example')).includes('198.51.100.8'), 'deleted at the provider')

    // A change made at the provider's side shows after /sync.
    const outside = await app.inject({ method: 'GET', url: '/api/v1/health' })
    t.equal(outside.statusCode, 200)
    const { id: newId } = await fakeAdd(fake.state, f.provider)
    const synced = await dns.call('POST', `/zones/${zone.id}/sync`)
    t.equal(synced.statusCode, 200, synced.body)
    t.equal(synced.json().data.records_count, seeds.length + 1, 'sync imported the provider-side record')
    t.ok((await dns.call('GET', `/zones/${zone.id}/records`)).json().data.some((r: { id: string }) => r.id === newId))

    const countBefore = (await dns.call('GET', `/zones/${zone.id}`)).json().data.records_count
    const vanished = (await dns.record(zone.id, { type: 'TXT', name: 'gone', content: 'soon deleted at the provider' })).json().data
    const held = fake.state.records('shop.example') ?? []
    held.splice(
      held.findIndex((r) => r.id === vanished.id),
      1,
    )
    t.equal(
      (await dns.call('DELETE', `/zones/${zone.id}/records/${vanished.id}`)).statusCode,
      200,
      'a record already gone at the provider deletes cleanly',
    )
    t.equal((await dns.call('GET', `/zones/${zone.id}`)).json().data.records_count, countBefore, 'and leaves the mirror')

    const applied = await dns.call('POST', `/zones/${zone.id}/apply-template`, {
      template: 'verify-google',
      variables: { token: 'gv-123' },
    })
    t.equal(applied.statusCode, 201, applied.body)
    t.ok(
      JSON.stringify(fake.state.records('shop.example')).includes('google-site-verification=gv-123'),
      'template records written at the provider',
    )

    if (f.provider === 'namecheap') {
      const srv = await dns.record(zone.id, { type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.shop.example', priority: 1 })
      t.equal(srv.statusCode, 422, 'Namecheap has no SRV: 422 before any call')
    }
    const proxied = await dns.record(zone.id, { type: 'A', name: 'cdn', content: '192.0.2.50', proxied: true })
    t.equal(proxied.statusCode, f.provider === 'cloudflare' ? 201 : 422, 'proxied only at Cloudflare')

    const bad = (await dns.call('POST', '/provider-accounts', { provider: f.provider, label: 'bad', credentials: f.badCredentials })).json()
      .data
    const refused = await dns.call('POST', '/zones', { zone: 'other.example', mode: 'proxy', provider_account_id: bad.id })
    t.equal(refused.statusCode, 502, 'refused credentials → 502')
    t.match(refused.json().error, { code: 'PROVIDER_ERROR', details: { provider: f.provider, reason: 'auth' } })
    t.equal((await dns.call('DELETE', `/provider-accounts/${account.id}`)).statusCode, 409, 'an account in use cannot go')
    t.equal((await dns.call('DELETE', `/zones/${zone.id}`)).statusCode, 200)
    t.ok((fake.state.records('shop.example') ?? []).length > 0, 'deleting a proxy zone leaves the provider’s zone alone')
  })
}

t.test('an unreachable provider → 502 PROVIDER_ERROR', async (t) => {
  const app = await build(t, { env: { HEARTH_CLOUDFLARE_API_URL: 'http://127.0.0.1:9/client/v4', HEARTH_DNS_OUTBOUND_TIMEOUT_MS: '2000' } })
  const dns = dnsApi(app, (await owner(app)).token)
  const account = (
    await dns.call('POST', '/provider-accounts', { provider: 'cloudflare', label: 'x', credentials: { api_token: 'tok-unreachable' } })
  ).json().data
  const res = await dns.call('POST', '/zones', { zone: 'shop.example', mode: 'proxy', provider_account_id: account.id })
  t.equal(res.statusCode, 502)
  t.match(res.json().error, { code: 'PROVIDER_ERROR', details: { reason: 'unreachable' } })
  t.same((await dns.call('POST', `/provider-accounts/${account.id}/test`)).json().data, { connected: false })
})

/** Adds a record directly in the fake provider's store, in that provider's own shape. */
async function fakeAdd(state: import('../../../drivers/dns-providers/test/fake-server.js').FakeZones, provider: string) {
  const records = state.records('shop.example') as Array<Record<string, unknown> & { id: string }>
  const id = provider === 'cloudflare' ? `rec${state.id()}` : state.id()
  const shapes: Record<string, Record<string, unknown>> = {
    cloudflare: { type: 'TXT', name: 'added.shop.example', content: 'from-the-dashboard', ttl: 1, proxied: false },
    porkbun: { type: 'TXT', name: 'added.shop.example', content: 'from-the-dashboard', ttl: '600', prio: '0', notes: '' },
    namecheap: { Type: 'TXT', Name: 'added', Address: 'from-the-dashboard', MXPref: '10', TTL: '1800' },
    digitalocean: {
      type: 'TXT',
      name: 'added',
      data: 'from-the-dashboard',
      priority: null,
      port: null,
      ttl: 1800,
      weight: null,
      flags: null,
      tag: null,
    },
  }
  records.push({ ...shapes[provider], id })
  return { id }
}

t.test('a template at a provider is all or none: created records are removed when one is refused', async (t) => {
  const f = fixtures.find((x) => x.provider === 'porkbun') as (typeof fixtures)[number]
  const aOnly = seeds.filter((s) => s.type === 'A')
  const fake = await f.start({ 'shop.example': aOnly })
  t.teardown(() => fake.close())
  const app = await build(t, { env: { [f.env]: fake.url } })
  const dns = dnsApi(app, (await owner(app)).token)
  const account = (await dns.call('POST', '/provider-accounts', { provider: f.provider, label: 'main', credentials: f.credentials })).json()
    .data
  const zone = (await dns.call('POST', '/zones', { zone: 'shop.example', mode: 'proxy', provider_account_id: account.id })).json().data
  const before = JSON.stringify(fake.state.records('shop.example'))
  const res = await dns.call('POST', `/zones/${zone.id}/apply-template`, {
    template: 'mail-full',
    variables: { domain: 'shop.example', server_ip: '192.0.2.9', dkim_key: 'REJECT-ME' },
  })
  t.equal(res.statusCode, 422, 'the provider refused the DKIM record')
  t.match(res.json().error, { code: 'UNPROCESSABLE', details: { provider: 'porkbun', reason: 'rejected' } })
  t.equal(JSON.stringify(fake.state.records('shop.example')), before, 'the records created before it were deleted at the provider')
  t.equal((await dns.call('GET', `/zones/${zone.id}`)).json().data.records_count, aOnly.length, 'and never mirrored')
})
