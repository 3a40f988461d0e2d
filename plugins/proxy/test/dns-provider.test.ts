import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { startPorkbun } from '../../../drivers/dns-providers/porkbun/test/server.js'
import { addUser, auth, build, owner } from '../../../test/helper.js'

/**
 * The proxy's DNS-provider integration: configured by an admin with the providers and
 * credential keys of DNS provider accounts, tested with one real call against the provider's wire
 * format (a local Porkbun server), stored encrypted, never returned; its zone's records listed.
 */
const keys = { apikey: 'pk1_proxy_dns_secret_0001', secretapikey: 'sk1_proxy_dns_secret_0002' }

t.test('configure, read back without secrets, list the zone’s records; roles and validation', async (t) => {
  const porkbun = await startPorkbun(keys, { 'home.example': [{ name: 'www', type: 'A', content: '192.0.2.7', ttl: 600 }] })
  t.teardown(() => porkbun.close())
  const app = await build(t, { env: { HEARTH_PORKBUN_API_URL: porkbun.url } })
  const o = await owner(app)
  const call = (method: 'GET' | 'PUT', path: string, payload?: object, token = o.token) =>
    app.inject({ method, url: `/api/v1/proxy/dns-provider${path}`, headers: auth(token), ...(payload ? { payload } : {}) })

  t.same((await call('GET', '/config')).json().data, {
    provider: null,
    configured: false,
    zone: null,
    last_tested_at: null,
    connected: null,
  })
  t.equal((await call('GET', '/dns')).statusCode, 422, 'nothing configured: 422 saying so')

  const bad = await call('PUT', '/config', { provider: 'porkbun', credentials: { apikey: 'x' } })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().error.details, { field: 'credentials.secretapikey', constraint: 'required' })
  t.equal((await call('PUT', '/config', { provider: 'nosuch', credentials: {} })).statusCode, 400, 'unknown provider')
  const wrongZone = await call('PUT', '/config', { provider: 'porkbun', credentials: keys, zone: 'other.example' })
  t.equal(wrongZone.statusCode, 422, 'a zone the account does not hold')

  const member = await addUser(app, o.token)
  t.equal((await call('PUT', '/config', { provider: 'porkbun', credentials: keys }, member.token)).statusCode, 403, 'admins only')
  t.equal((await call('GET', '/config', undefined, member.token)).statusCode, 403)

  const saved = await call('PUT', '/config', { provider: 'porkbun', credentials: keys, zone: 'Home.Example' })
  t.equal(saved.statusCode, 200, saved.body)
  t.match(saved.json().data, { provider: 'porkbun', configured: true, zone: 'home.example', connected: true })
  const records = await call('GET', '/dns')
  t.equal(records.statusCode, 200, records.body)
  t.ok(records.json().data.some((r: { name: string; content: string }) => r.name === 'www' && r.content === '192.0.2.7'))

  const seen = JSON.stringify([saved.json(), (await call('GET', '/config')).json(), records.json()])
  t.notMatch(seen, /pk1_proxy_dns_secret|sk1_proxy_dns_secret/, 'never in an answer')
  await app.close()
  for (const file of ['hearth.db', 'hearth.db-wal']) {
    let bytes = ''
    try {
      bytes = readFileSync(join(app.dataDir, file), 'latin1')
    } catch {}
    t.notMatch(bytes, /pk1_proxy_dns_secret|sk1_proxy_dns_secret/, `never in clear in ${file}`)
  }
})
