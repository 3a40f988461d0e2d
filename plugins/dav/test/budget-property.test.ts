import fc from 'fast-check'
import t from 'tap'
import { definePlugin } from '../../../core/plugin-api.js'
import { parseMultistatus } from '../../../lib/webdav-xml/index.js'
import { build, apiKey, owner } from '../../../test/helper.js'
import records from '../../records/index.js'
import type { RecordsPluginService } from '../../records/public.js'
import dav from '../index.js'
import { basicHeader, VCARD } from './dav-app.js'

/**
 * Random multiget and PROPFIND bodies (hrefs repeated and spelled differently, properties known,
 * unknown and repeated) over an address book with large cards: every answer is a well-formed
 * multistatus within the answer budget, names each resource once, and reads each stored record
 * at most once.
 */
const BUDGET = 65_536
const CARDS = 6

/** Counts the records service's reads (the real service, observed). */
const reads = { count: 0 }
const readCounter = definePlugin(
  { name: 'read-counter', version: '1.0.0', apiVersion: '^1.1.0', description: 'counts record reads', dependencies: ['records'] },
  async (_app, api) => {
    const { service } = api.services.get<RecordsPluginService>('records')
    const get = service.get.bind(service)
    service.get = (...args) => {
      reads.count++
      return get(...args)
    }
  },
)

t.test('DAV answers stay within the budget and read each record once', async (t) => {
  const app = await build(t, {
    env: { HEARTH_ANSWER_BUDGET: String(BUDGET) },
    plugins: [records as never, readCounter as never, dav as never],
  })
  const o = await owner(app)
  const basic = basicHeader(o.email, await apiKey(app, o.token, { scope: 'dav' }))
  const send = (method: string, url: string, payload: string, headers: Record<string, string> = {}) =>
    app.inject({ method: method as 'GET', url, headers: { ...basic, 'content-type': 'application/xml', ...headers }, payload })
  for (let i = 0; i < CARDS; i++) {
    const photo = i % 2 ? `PHOTO;ENCODING=b;TYPE=JPEG:${'A'.repeat(20_000)}\r\n` : ''
    const put = await send('PUT', `/dav/addressbooks/contacts/c${i}.vcf`, VCARD(`u${i}`, `Card ${i}`, photo), {
      'content-type': 'text/vcard',
    })
    t.equal(put.statusCode, 201)
  }
  const hrefArb = fc.oneof(
    fc.integer({ min: 0, max: CARDS + 2 }).map((i) => `/dav/addressbooks/contacts/c${i}.vcf`),
    fc.integer({ min: 0, max: CARDS - 1 }).map((i) => `/dav/addressbooks/contacts/%63${i}.vcf`),
    fc.constant('/elsewhere/x.vcf'),
  )
  const propArb = fc.oneof(
    fc.constantFrom('<d:getetag/>', '<card:address-data/>', '<d:getcontentlength/>', '<d:displayname/>'),
    fc.integer({ min: 0, max: 400 }).map((i) => `<x:p${i}/>`),
  )
  const NS = 'xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav" xmlns:x="urn:x"'
  await fc.assert(
    fc.asyncProperty(
      fc.boolean(),
      fc.array(hrefArb, { maxLength: 300 }),
      fc.array(propArb, { minLength: 1, maxLength: 600 }),
      async (multiget, hrefs, props) => {
        const prop = `<d:prop>${props.join('')}</d:prop>`
        const before = reads.count
        const res = multiget
          ? await send(
              'REPORT',
              '/dav/addressbooks/contacts/',
              `<card:addressbook-multiget ${NS}>${prop}${hrefs.map((h) => `<d:href>${h}</d:href>`).join('')}</card:addressbook-multiget>`,
              { depth: '1' },
            )
          : await send('PROPFIND', '/dav/addressbooks/contacts/', `<d:propfind ${NS}>${prop}</d:propfind>`, { depth: '1' })
        const used = reads.count - before
        if (res.statusCode !== 207) throw new Error(`status ${res.statusCode}: ${res.body.slice(0, 200)}`)
        if (res.rawPayload.byteLength > BUDGET) throw new Error(`${res.rawPayload.byteLength} bytes`)
        // The 507 that ends a cut answer names the collection again; every other response is one resource.
        const answered = parseMultistatus(res.body)
          .responses.filter((r) => r.status !== 507)
          .map((r) => r.href)
        if (new Set(answered).size !== answered.length) throw new Error(`a resource answered twice: ${answered.join(' ')}`)
        const distinct = multiget ? new Set(hrefs.map((h) => h.replace('%63', 'c'))).size : CARDS
        if (used > distinct) throw new Error(`${used} record reads for ${distinct} distinct resources`)
      },
    ),
    { numRuns: 40 },
  )
})
