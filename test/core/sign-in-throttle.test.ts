import t from 'tap'
import { apiKey, build, owner } from '../helper.js'
import { basicAuth, listening, requestFrom } from '../net-client.js'

/**
 * Failed sign-ins are counted per (account, client) and per client, never per account alone: ten failed
 * Basic sign-ins naming someone's email from one machine used to lock that user's phone (another
 * machine, with a correct key) and their password login for 15 minutes, renewable by anyone who knows
 * the address. Each loopback address here is another machine to the daemon.
 */

const WRONG_KEY = 'clk_00000000000000000000000000000000'
const PROPFIND = { depth: '0' }

t.test("failures naming someone's email from one client do not lock their phone or their login elsewhere", async (t) => {
  const app = await build(t, { env: { HEARTH_DISABLED_PLUGINS: 'proxy' } })
  const o = await owner(app)
  const davKey = await apiKey(app, o.token, { scope: 'dav', label: 'phone' })
  const port = await listening(app)
  const propfind = (from: string, password: string) =>
    requestFrom(port, from, 'PROPFIND', '/dav/', { headers: { ...PROPFIND, ...basicAuth(o.email, password) } })
  const login = (from: string, password: string) =>
    requestFrom(port, from, 'POST', '/api/v1/auth/login', { body: { email: o.email, password } })

  const attacker = '127.0.0.1'
  const refused: Array<number | string> = []
  for (let i = 0; i < 10; i++) refused.push((await propfind(attacker, WRONG_KEY)).status)
  t.same(refused, Array(10).fill(401), 'ten wrong keys, each 401')
  for (let i = 0; i < 10; i++) await login(attacker, 'not the password')

  const phone = await propfind('127.0.0.2', davKey)
  t.equal(phone.status, 207, "the owner's phone, elsewhere, still syncs with its key (was 429)")
  t.equal((await login('127.0.0.2', o.password)).status, 200, 'the owner still signs in with the password from home (was 429)')

  const blocked = await propfind(attacker, davKey)
  t.equal(blocked.status, 429, 'the client that failed meets the throttle, even holding the right key')
  t.ok(Number(blocked.headers['retry-after']) > 0, 'Retry-After is set')
  t.equal((await login(attacker, o.password)).status, 429, 'and its password logins too')
})

t.test('one client failing on many accounts meets its own budget', async (t) => {
  const app = await build(t, { env: { HEARTH_DISABLED_PLUGINS: 'proxy', HEARTH_LOGIN_FAIL_LIMIT: '2' } })
  const o = await owner(app)
  const port = await listening(app)
  const statuses: Array<number | string> = []
  // Two per account, five times the limit per client: the 11th guess, on a fresh email, is refused.
  for (let i = 0; i < 11; i++)
    statuses.push(
      (await requestFrom(port, '127.0.0.3', 'POST', '/api/v1/auth/login', { body: { email: `guess${i}@example.test`, password: 'x' } }))
        .status,
    )
  t.same(statuses, [...Array(10).fill(401), 429])
  const owners = await requestFrom(port, '127.0.0.3', 'POST', '/api/v1/auth/login', { body: { email: o.email, password: o.password } })
  t.equal(owners.status, 429, 'every account, from that client')
  const elsewhere = await requestFrom(port, '127.0.0.4', 'POST', '/api/v1/auth/login', { body: { email: o.email, password: o.password } })
  t.equal(elsewhere.status, 200, 'not from another')
})

t.test('an IPv6 client is its /64: rotating addresses within it does not reset the count', async (t) => {
  const app = await build(t, { env: { HEARTH_DISABLED_PLUGINS: 'proxy', HEARTH_LOGIN_FAIL_LIMIT: '3' } })
  const o = await owner(app)
  const login = (remoteAddress: string, password: string) =>
    app.inject({ method: 'POST', url: '/api/v1/auth/login', remoteAddress, payload: { email: o.email, password } })
  for (let i = 1; i <= 3; i++) t.equal((await login(`2001:db8:1:2::${i}`, 'wrong')).statusCode, 401)
  t.equal((await login('2001:db8:1:2:ffff::9', o.password)).statusCode, 429, 'another address of the same /64 is the same client')
  t.equal((await login('2001:db8:1:3::1', o.password)).statusCode, 200, 'the next /64 is another client')
  t.equal((await login('192.0.2.10', o.password)).statusCode, 200)
})
