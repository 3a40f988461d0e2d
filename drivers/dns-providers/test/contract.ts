import type { Test } from 'tap'
import { type DnsProviderModule, ProviderError, type ProviderRecord, type RecordInput, type RecordType } from '../driver.js'
import { type FakeServer, startFake } from './fake-server.js'

/**
 * The conformance suite every DnsProviderDriver passes against its local
 * wire-format server: connection test (good, refused, unreachable), zone and
 * record listing across pages, create/update/delete of every record type the
 * provider supports, and its error replies.
 */
export interface Seed {
  name: string
  type: RecordType
  content: string
  ttl: number
  priority?: number
}

export interface ContractOptions {
  module: DnsProviderModule
  credentials: Record<string, string>
  badCredentials: Record<string, string>
  /** Starts the provider's stand-in holding these zones, accepting `credentials`. */
  start(zones: Record<string, Seed[]>): Promise<FakeServer>
  /** Extra empty zones, enough to need more than one page of the zone list. */
  extraZones: number
  /** Records seeded in the zone, enough to need more than one page where the API pages. */
  seededRecords: number
}

const ZONE = 'example.com'

const samples: RecordInput[] = [
  { type: 'A', name: 'www', content: '198.51.100.10', ttl: 300, priority: null, proxied: false },
  { type: 'AAAA', name: 'v6', content: '2001:db8::1', ttl: 300, priority: null, proxied: false },
  { type: 'CNAME', name: 'blog', content: 'www.example.com', ttl: 300, priority: null, proxied: false },
  { type: 'MX', name: '@', content: 'mail.example.com', ttl: 300, priority: 10, proxied: false },
  { type: 'TXT', name: '@', content: 'v=spf1 mx -all', ttl: 300, priority: null, proxied: false },
  { type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"', ttl: 300, priority: null, proxied: false },
  { type: 'NS', name: 'lab', content: 'ns1.other.net', ttl: 300, priority: null, proxied: false },
  { type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.example.com', ttl: 300, priority: 10, proxied: false },
]

const neutral = (r: ProviderRecord | RecordInput) => ({ type: r.type, name: r.name, content: r.content, ttl: r.ttl, priority: r.priority })

async function rejects(t: Test, p: Promise<unknown>, kind: string, secrets: string[], what: string) {
  try {
    await p
    t.fail(`${what}: expected a ProviderError (${kind})`)
  } catch (err) {
    t.ok(err instanceof ProviderError, `${what}: a ProviderError`)
    t.equal((err as ProviderError).kind, kind, `${what}: kind ${kind} (${(err as Error).message})`)
    for (const s of secrets) t.notOk((err as Error).message.includes(s), `${what}: message carries no credential`)
  }
}

export function providerContract(t: Test, opts: ContractOptions): void {
  const seeds: Seed[] = Array.from({ length: opts.seededRecords }, (_, i) => ({
    name: `host${i}`,
    type: 'A',
    content: `192.0.2.${i % 250}`,
    ttl: 3600,
  }))
  const zones: Record<string, Seed[]> = { [ZONE]: seeds }
  for (let i = 0; i < opts.extraZones; i++) zones[`zone${i}.test`] = []
  const secrets = [...Object.values(opts.credentials), ...Object.values(opts.badCredentials)].filter((s) => s.length >= 6)
  const zone = { id: '', name: ZONE }

  t.test(`${opts.module.name}: conformance`, async (t) => {
    const fake = await opts.start(zones)
    t.teardown(() => fake.close())
    const good = opts.module.create({ baseUrl: fake.url, credentials: opts.credentials })
    const bad = opts.module.create({ baseUrl: fake.url, credentials: opts.badCredentials })

    t.equal(await good.testConnection(), true, 'valid credentials connect')
    t.equal(await bad.testConnection(), false, 'refused credentials do not connect')
    const down = opts.module.create({ baseUrl: 'http://127.0.0.1:9/api', credentials: opts.credentials, timeoutMs: 2000 })
    t.equal(await down.testConnection(), false, 'an unreachable API does not connect')
    await rejects(t, down.listZones(), 'unreachable', secrets, 'unreachable listZones')

    const listed = await good.listZones()
    t.equal(listed.length, opts.extraZones + 1, 'every zone listed across pages')
    const found = listed.find((z) => z.name === ZONE)
    t.ok(found, 'the zone is listed')
    zone.id = found?.id ?? ''
    await rejects(t, bad.listZones(), 'auth', secrets, 'refused listZones')
    await rejects(t, bad.listRecords(zone), 'auth', secrets, 'refused listRecords')

    const records = await good.listRecords(zone)
    const hosts = records.filter((r) => r.name.startsWith('host'))
    t.equal(hosts.length, opts.seededRecords, 'every seeded record listed across pages')
    t.same(neutral(hosts.find((r) => r.name === 'host7') as ProviderRecord), {
      type: 'A',
      name: 'host7',
      content: '192.0.2.7',
      ttl: 3600,
      priority: null,
    })

    for (const sample of samples.filter((s) => opts.module.recordTypes.includes(s.type))) {
      const created = await good.createRecord(zone, sample)
      t.ok(created.id, `${sample.type} created with an id`)
      t.same(neutral(created), neutral(sample), `${sample.type} returned as written`)
      const again = (await good.listRecords(zone)).find((r) => r.id === created.id)
      t.same(again && neutral(again), neutral(sample), `${sample.type} listed as written`)
    }

    const www = (await good.listRecords(zone)).find((r) => r.name === 'www') as ProviderRecord
    const change: RecordInput = { ...samples[0], content: '198.51.100.20', ttl: 600 } as RecordInput
    const updated = await good.updateRecord(zone, www.id, change)
    t.same(neutral(updated), neutral(change), 'update returns the new record')
    const after = await good.listRecords(zone)
    t.same(after.filter((r) => r.name === 'www').map(neutral), [neutral(change)], 'update replaced the record')
    t.equal(after.length, records.length + samples.filter((s) => opts.module.recordTypes.includes(s.type)).length, 'update added nothing')

    await good.deleteRecord(zone, updated.id)
    t.notOk(
      (await good.listRecords(zone)).some((r) => r.name === 'www'),
      'deleted record gone',
    )
    await rejects(t, good.deleteRecord(zone, '987654321'), 'not_found', secrets, 'delete of an unknown id')
    await rejects(t, good.updateRecord(zone, '987654321', change), 'not_found', secrets, 'update of an unknown id')
    await rejects(t, good.listRecords({ id: 'nope', name: 'absent.example' }), 'not_found', secrets, 'records of an unknown zone')
  })

  t.test(`${opts.module.name}: a reply that is not the documented shape`, async (t) => {
    const broken = await startFake(() => ({ status: 502, body: '<html><body>Bad gateway</body></html>', contentType: 'text/html' }))
    t.teardown(() => broken.close())
    const driver = opts.module.create({ baseUrl: broken.url, credentials: opts.credentials })
    await rejects(t, driver.listZones(), 'bad_response', secrets, 'HTML error page')
    t.equal(await driver.testConnection(), false, 'no connection through a broken gateway')
  })
}
