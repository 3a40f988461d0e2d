import { execFileSync } from 'node:child_process'
import t from 'tap'
import dav from '../../plugins/dav/index.js'
import records from '../../plugins/records/index.js'
import { auth, build, owner } from '../helper.js'

/**
 * Adding a device: DAVx⁵'s details and Apple's configuration profile, each holding a new app password
 * that signs in to /dav/. The profile is read with python3's plistlib and checked against the keys of
 * Apple's Device Management payloads (docs/api.md cites the pages).
 */

const basic = (email: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` })
type Payload = Record<string, unknown> & { PayloadType: string; PayloadUUID: string; PayloadIdentifier: string }
type Profile = Payload & { PayloadContent: Payload[] }
const readPlist = (text: string): Profile =>
  JSON.parse(
    execFileSync('python3', ['-c', 'import sys, json, plistlib\nprint(json.dumps(plistlib.loads(sys.stdin.buffer.read())))'], {
      input: text,
    }).toString(),
  )

async function bench(t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const app = await build(t, { plugins: [records as never, dav as never], env })
  const o = await owner(app)
  const propfind = (url: string, email: string, password: string) =>
    app.inject({ method: 'PROPFIND' as 'GET', url, headers: { ...basic(email, password), depth: '0' } })
  return { app, o, propfind }
}

t.test('DAVx⁵: the URL this request reached, the email, a new app password that syncs', async (t) => {
  const { app, o, propfind } = await bench(t)
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/devices/davx5',
    headers: { ...auth(o.token), host: 'nas.home.test:7200' },
    payload: { name: 'Pixel' },
  })
  t.equal(res.statusCode, 201, res.body)
  const { url, username, password } = res.json().data
  t.equal(url, 'http://nas.home.test:7200/dav/')
  t.equal(username, o.email)
  t.equal((await propfind(new URL(url).pathname, username, password)).statusCode, 207)
  const listed = (await app.inject({ method: 'GET', url: '/api/v1/auth/app-passwords', headers: auth(o.token) })).json().data
  t.same(
    listed.map((p: { name: string }) => p.name),
    ['Pixel'],
    'an app password named after the device',
  )

  const bad = await app.inject({
    method: 'POST',
    url: '/api/v1/devices/davx5',
    headers: { ...auth(o.token), host: 'a b<c>' },
    payload: { name: 'x' },
  })
  t.equal(bad.statusCode, 400, 'a Host header no device could use')
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/devices/davx5', headers: auth(o.token), payload: {} })).statusCode,
    400,
    'a name is needed',
  )
})

t.test("Apple's profile: a Configuration with a CalDAV and a CardDAV account that sign in", async (t) => {
  const { app, o, propfind } = await bench(t)
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/devices/apple-profile',
    headers: { ...auth(o.token), host: 'nas.home.test:7200' },
    payload: { name: 'Ann’s iPhone' },
  })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['content-type'], 'application/x-apple-aspen-config')
  t.match(res.headers['content-disposition'], /attachment; filename="hearth\.mobileconfig"/)
  t.equal(res.headers['cache-control'], 'no-store')

  const profile = readPlist(res.body)
  // Top level (TopLevel): PayloadType "Configuration", PayloadVersion 1, PayloadIdentifier, PayloadUUID, PayloadContent.
  t.match(profile, {
    PayloadType: 'Configuration',
    PayloadVersion: 1,
    PayloadIdentifier: /^local\.hearth\./,
    PayloadRemovalDisallowed: false,
  })
  t.match(profile.PayloadUUID, /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/)
  t.equal(profile.PayloadContent.length, 2)
  const byType = Object.fromEntries(profile.PayloadContent.map((p) => [p.PayloadType, p])) as Record<string, Payload>
  t.same(Object.keys(byType).sort(), ['com.apple.caldav.account', 'com.apple.carddav.account'])
  const uuids = new Set([profile.PayloadUUID, ...profile.PayloadContent.map((p) => p.PayloadUUID)])
  t.equal(uuids.size, 3, 'every payload has its own UUID')

  for (const [type, kind] of [
    ['com.apple.caldav.account', 'CalDAV'],
    ['com.apple.carddav.account', 'CardDAV'],
  ] as const) {
    const p = byType[type] as Payload
    // Common payload keys, then the account's keys (HostName, Port, UseSSL, PrincipalURL, Username, Password).
    t.match(p, { PayloadVersion: 1, PayloadIdentifier: `${profile.PayloadIdentifier}.${kind.toLowerCase()}` }, type)
    t.equal(p[`${kind}HostName`], 'nas.home.test')
    t.equal(p[`${kind}Port`], 7200)
    t.equal(p[`${kind}UseSSL`], false)
    t.equal(p[`${kind}Username`], o.email)
    t.equal(p[`${kind}PrincipalURL`], 'http://nas.home.test:7200/dav/')
    t.type(p[`${kind}AccountDescription`], 'string')
    t.equal((await propfind('/dav/', o.email, p[`${kind}Password`] as string)).statusCode, 207, `${kind} account signs in`)
  }
  t.equal(byType['com.apple.caldav.account']?.CalDAVPassword, byType['com.apple.carddav.account']?.CardDAVPassword, 'one app password')

  const again = readPlist(
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/devices/apple-profile',
        headers: { ...auth(o.token), host: 'nas.home.test:7200' },
        payload: { name: 'Ann’s iPhone' },
      })
    ).body,
  )
  t.equal(again.PayloadIdentifier, profile.PayloadIdentifier, 'the same device: the same identifier, so a new profile replaces the old one')
  t.not(again.PayloadUUID, profile.PayloadUUID)
})

t.test('behind a trusted proxy the profile says HTTPS on 443; from anyone else X-Forwarded-* is ignored', async (t) => {
  const { app, o } = await bench(t, { HEARTH_TRUSTED_PROXIES: '127.0.0.1' })
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'hearth.example.test' }
  const viaProxy = readPlist(
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/devices/apple-profile',
        headers: { ...auth(o.token), ...forwarded },
        payload: { name: 'Mac' },
      })
    ).body,
  )
  t.match(viaProxy.PayloadContent[0], { CalDAVHostName: 'hearth.example.test', CalDAVPort: 443, CalDAVUseSSL: true })
  const direct = await app.inject({
    method: 'POST',
    url: '/api/v1/devices/davx5',
    headers: { ...auth(o.token), ...forwarded, host: 'nas.lan:7200' },
    payload: { name: 'Tablet' },
    remoteAddress: '192.0.2.50',
  })
  t.equal(direct.json().data.url, 'http://nas.lan:7200/dav/')
})
