import t from 'tap'
import { startPorkbun } from '../../../drivers/dns-providers/porkbun/test/server.js'
import { addUser, auth, build, owner } from '../../../test/helper.js'
import { dnsApi, localService } from './support.js'

/**
 * A second user against every DNS route the daemon serves (read from the OpenAPI document, so a
 * route added later is covered too), with the first user's ids in every path parameter: no answer
 * holds the first user's zones, records, accounts or DDNS data, and nothing of theirs changes.
 */

const noTools = async (cmd: string) => ({ code: 127, stdout: '', stderr: `${cmd}: not here` })

/** A plausible body per route, so a refusal comes from scoping, not from validation. */
function bodyFor(method: string, path: string): object | undefined {
  if (method === 'GET' || method === 'DELETE') return undefined
  if (path.endsWith('/records') || path.endsWith('/records/{recordId}')) return { type: 'A', name: 'stolen', content: '198.51.100.66' }
  if (path.endsWith('/apply-template')) return { template: 'verify-google', variables: { token: 'stolen' } }
  if (path.endsWith('/ddns')) return { ddns_enabled: true, ddns_record_ids: [] }
  if (path.endsWith('/provider-accounts'))
    return { provider: 'porkbun', label: 'bob', credentials: { apikey: 'pk1_x', secretapikey: 'sk1_x' } }
  if (path.endsWith('/zones')) return { zone: 'bob-own.test', mode: 'authoritative' }
  return {}
}

t.test('no DNS route shows or changes another user’s data', async (t) => {
  const ip = await Promise.all([localService('203.0.113.10'), localService('203.0.113.10')])
  const keys = { apikey: 'pk1_alice_key_0001', secretapikey: 'sk1_alice_key_0002' }
  const porkbun = await startPorkbun(keys, { 'alice-shop.example': [{ name: 'www', type: 'A', content: '192.0.2.200', ttl: 600 }] })
  t.teardown(() => Promise.all([...ip.map((s) => s.close()), porkbun.close()]))
  const app = await build(t, {
    env: {
      HEARTH_DNS_PORT: '0',
      HEARTH_PUBLIC_IP_SOURCES: ip.map((s) => s.url).join(','),
      HEARTH_DDNS_CRON: '0 0 1 1 *',
      HEARTH_PORKBUN_API_URL: porkbun.url,
    },
    run: noTools,
  })
  const alice = await owner(app)
  const bob = await addUser(app, alice.token)
  const a = dnsApi(app, alice.token)

  const zone = await a.zone('alice-home.test')
  const record = (await a.record(zone.id, { type: 'A', name: 'vpn', content: '192.0.2.1' })).json().data
  await a.call('PATCH', `/zones/${zone.id}/ddns`, { ddns_enabled: true, ddns_record_ids: [record.id] })
  const account = (await a.call('POST', '/provider-accounts', { provider: 'porkbun', label: 'alice-porkbun', credentials: keys })).json()
    .data
  const shop = (await a.call('POST', '/zones', { zone: 'alice-shop.example', mode: 'proxy', provider_account_id: account.id })).json().data
  await a.call('POST', '/ddns/check-now')
  const secrets = ['alice-home.test', 'alice-shop.example', record.id, account.id, 'alice-porkbun', shop.id, zone.id]
  // last_check_at is the instance's: any user's check-now moves it (documented), nothing of Alice's.
  const snapshot = async () =>
    JSON.stringify(
      await Promise.all(
        ['/zones', `/zones/${zone.id}/records`, `/zones/${shop.id}/records`, '/provider-accounts', '/ddns/status', '/ddns/log'].map(
          async (p) => (await a.call('GET', p)).json(),
        ),
      ),
    ).replace(/"last_check_at":"[^"]*"/g, '')
  const before = await snapshot()

  const doc = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
    paths: Record<string, Record<string, unknown>>
  }
  const routes = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/api/v1/dns/'))
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => ({ method: m.toUpperCase(), path })))
  t.ok(routes.length >= 20, `${routes.length} DNS routes`)
  for (const { method, path } of routes) {
    for (const zoneId of [zone.id, shop.id]) {
      const url = path.replace('{id}', zoneId).replace('{recordId}', record.id).replace('{accountId}', account.id)
      const target = path.startsWith('/api/v1/dns/provider-accounts/') ? path.replace('{id}', account.id) : url
      const body = bodyFor(method, path)
      const res = await app.inject({ method: method as 'GET', url: target, headers: auth(bob.token), ...(body ? { payload: body } : {}) })
      t.ok(res.statusCode < 500, `${method} ${path}: ${res.statusCode}`)
      const leaked = secrets.filter((s) => res.body.includes(s) && !target.includes(s))
      t.same(leaked, [], `${method} ${path} shows nothing of Alice's`)
    }
  }
  t.equal(await snapshot(), before, 'Alice’s zones, records, accounts and DDNS data are unchanged')
})
