import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { build, owner } from '../../../test/helper.js'
import { allSecrets, fixtures } from './providers.js'
import { dnsApi } from './support.js'

/** Provider accounts: per-provider credential keys, sealed storage, nothing secret ever returned. */

t.test('credentials are checked per provider', async (t) => {
  const app = await build(t)
  const dns = dnsApi(app, (await owner(app)).token)
  const post = (body: object) => dns.call('POST', '/provider-accounts', body)
  const unknown = await post({ provider: 'godaddy', label: 'x', credentials: { api_token: 'a' } })
  t.equal(unknown.statusCode, 400)
  t.same(unknown.json().error.details, { field: 'provider', constraint: 'enum' })
  for (const f of fixtures) {
    for (const key of Object.keys(f.credentials)) {
      const { [key]: _dropped, ...rest } = f.credentials
      const res = await post({ provider: f.provider, label: 'x', credentials: rest })
      t.equal(res.statusCode, 400, `${f.provider} without ${key}`)
      t.same(res.json().error.details, { field: `credentials.${key}`, constraint: 'required' }, `the error names ${key}`)
      t.match(res.json().error.message, key)
    }
    const extra = await post({ provider: f.provider, label: 'x', credentials: { ...f.credentials, password: 'p' } })
    t.same(extra.json().error.details, { field: 'credentials.password', constraint: 'unknown' })
  }
  t.equal(
    (await post({ provider: 'cloudflare', label: 'x', credentials: { api_token: 42 } })).statusCode,
    400,
    'credential values are strings',
  )
  t.equal((await post({ provider: 'cloudflare', credentials: { api_token: 'a' } })).json().error.details.field, 'label')
})

t.test('accounts never show their credentials, not even in the SQLite file', async (t) => {
  const servers = await Promise.all(fixtures.map((f) => f.start({ 'example.com': [] })))
  t.teardown(() => Promise.all(servers.map((s) => s.close())))
  const env = Object.fromEntries(fixtures.map((f, i) => [f.env, servers[i]?.url as string]))
  const app = await build(t, { env })
  const dns = dnsApi(app, (await owner(app)).token)
  const bodies: string[] = []

  for (const f of fixtures) {
    const created = await dns.call('POST', '/provider-accounts', {
      provider: f.provider,
      label: `My ${f.provider}`,
      credentials: f.credentials,
    })
    t.equal(created.statusCode, 201, created.body)
    bodies.push(created.body)
    const account = created.json().data
    t.same(Object.keys(account).sort(), ['connected', 'created_at', 'id', 'label', 'last_tested_at', 'provider'], 'account shape')
    t.match(account, { provider: f.provider, label: `My ${f.provider}`, connected: null, last_tested_at: null })

    const test = await dns.call('POST', `/provider-accounts/${account.id}/test`)
    bodies.push(test.body)
    t.same(test.json().data, { connected: true }, `${f.provider}: a real call to its local server connects`)
    t.ok(servers[fixtures.indexOf(f)]?.requests.length, 'the provider server was called')

    const bad = (await dns.call('POST', '/provider-accounts', { provider: f.provider, label: 'bad', credentials: f.badCredentials })).json()
      .data
    t.same(
      (await dns.call('POST', `/provider-accounts/${bad.id}/test`)).json().data,
      { connected: false },
      `${f.provider}: refused credentials → connected false`,
    )
  }
  const list = await dns.call('GET', '/provider-accounts')
  bodies.push(list.body)
  t.equal(list.json().data.length, 8)
  t.ok(
    list.json().data.every((a: { last_tested_at: string | null }) => a.last_tested_at),
    'tested accounts carry last_tested_at',
  )
  t.same(
    list.json().data.map((a: { connected: boolean }) => a.connected),
    [true, false, true, false, true, false, true, false],
  )

  for (const body of bodies) for (const secret of allSecrets) t.notOk(body.includes(secret), 'no credential in a response')
  const files = readdirSync(app.dataDir).filter((f) => /\.(db|sqlite|db-wal|db-shm|sqlite-wal|sqlite-shm)$/.test(f) || f.includes('.db'))
  t.ok(files.length > 0, `database files found: ${files.join(', ')}`)
  const raw = files.map((f) => readFileSync(join(app.dataDir, f)).toString('latin1')).join('')
  for (const secret of allSecrets) t.notOk(raw.includes(secret), 'no credential in clear in the SQLite file')
  t.ok(raw.includes('v1.'), 'sealed credentials are there')

  const first = list.json().data[0]
  t.same((await dns.call('DELETE', `/provider-accounts/${first.id}`)).json().data, { id: first.id, deleted: true })
  t.equal((await dns.call('POST', `/provider-accounts/${first.id}/test`)).statusCode, 404)
})
