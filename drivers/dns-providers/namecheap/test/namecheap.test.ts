import t from 'tap'
import namecheap from '../index.js'
import { providerContract } from '../../test/contract.js'
import { startNamecheap } from './server.js'

const keys = { api_user: 'hearthuser', api_key: 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5', client_ip: '203.0.113.7' }

providerContract(t, {
  module: namecheap,
  credentials: keys,
  badCredentials: { ...keys, api_key: 'ffffffffffffffffffffffffffffffff' },
  start: (zones) => startNamecheap(keys, zones),
  extraZones: 120,
  seededRecords: 15,
})

t.test('namecheap: wire format', async (t) => {
  const fake = await startNamecheap(keys, { 'example.co.uk': [{ name: '@', type: 'A', content: '192.0.2.1', ttl: 1800 }] })
  t.teardown(() => fake.close())
  const driver = namecheap.create({ baseUrl: fake.url, credentials: keys })
  const zone = { id: 'example.co.uk', name: 'example.co.uk' }
  const mx = await driver.createRecord(zone, {
    type: 'MX',
    name: '@',
    content: 'mail.example.co.uk',
    ttl: 1800,
    priority: 10,
    proxied: false,
  })
  const set = new URLSearchParams(fake.requests.find((r) => r.body.includes('setHosts'))?.body)
  t.equal(set.get('SLD'), 'example')
  t.equal(set.get('TLD'), 'co.uk', 'multi-label TLD split after the first label')
  t.equal(set.get('HostName1'), '@', 'existing host kept: setHosts replaces the whole set')
  t.equal(set.get('Address2'), 'mail.example.co.uk.')
  t.equal(set.get('MXPref2'), '10')
  t.equal(set.get('EmailType'), 'MX')
  t.ok(
    fake.requests.every((r) => r.method === 'POST' && !r.query.toString().includes(keys.api_key)),
    'key never in a URL',
  )
  const updated = await driver.updateRecord(zone, mx.id, {
    type: 'MX',
    name: '@',
    content: 'mx2.example.co.uk',
    ttl: 1800,
    priority: 20,
    proxied: false,
  })
  t.not(updated.id, mx.id, 'the id the host has after setHosts is returned')
  t.equal((await driver.listRecords(zone)).length, 2)
  const srv = await driver.createRecord(zone, {
    type: 'TXT',
    name: '@',
    content: 'a "quoted" <value> & more',
    ttl: 300,
    priority: null,
    proxied: false,
  })
  t.equal(srv.content, 'a "quoted" <value> & more', 'XML entities round-trip')
})
