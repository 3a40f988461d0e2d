import { createGzip } from 'node:zlib'
import t from 'tap'
import { auth } from '../../../test/helper.js'
import { bench, type Bench, upload } from './records-app.js'

/**
 * Inputs an attacker chose to stall or exhaust the daemon, from the adversarial review.
 * Each finished within tap's time-out only once the work became linear (the old code needed minutes
 * for these sizes: 120k spaces took 12.7 s and the cost grows with the square of the size).
 */

async function importFile(b: Bench, resource: string, filename: string, content: Buffer | string) {
  const body = upload(filename, content)
  const res = await b.app.inject({
    method: 'POST',
    url: `/api/v1/${resource}/import`,
    payload: body.payload,
    headers: { ...auth(b.token), ...body.headers },
  })
  return { status: res.statusCode, body: res.json() }
}

t.test('a note whose content is a long run of spaces gets its title in linear time', async (t) => {
  t.setTimeout(60_000)
  const b = await bench(t)
  const content = `Groceries${' '.repeat(990_000)}x`
  const res = await b.call('POST', '/notes', { content })
  t.equal(res.status, 201)
  t.equal(res.body.data.title, `Groceries${' '.repeat(71)}`.trimEnd())
  const heading = await b.call('POST', '/notes', { content: `## Plan ${' '.repeat(500_000)}##` })
  t.equal(heading.body.data.title, 'Plan', 'the closing hashes of a heading are still removed')
})

t.test('front matter with long runs of spaces parses in linear time', async (t) => {
  t.setTimeout(60_000)
  const b = await bench(t)
  const spaces = ' '.repeat(400_000)
  const keyWithoutColon = await importFile(b, 'notes', 'a.md', `---\ntitle${spaces}x\n---\nbody\n`)
  t.equal(keyWithoutColon.status, 400, 'a file whose front matter has a line without a colon is refused')
  const trailing = await importFile(b, 'notes', 'b.md', `---\ntitle: Trip plan\nplace: Lyon${spaces}x${spaces}\n---\nbody\n`)
  t.equal(trailing.status, 200)
  const note = await b.call('GET', `/notes/${trailing.body.data.ids[0]}`)
  t.equal(note.body.data.title, 'Trip plan')
  t.equal(note.body.data.custom_fields.place, `Lyon${spaces}x`, 'trailing spaces dropped, inner ones kept')
})

t.test('a vCard with a folded multi-megabyte PHOTO unfolds in linear time', async (t) => {
  t.setTimeout(60_000)
  const b = await bench(t)
  const photo = Buffer.alloc(4_500_000, 7).toString('base64')
  const folded = photo.match(/.{1,74}/g)!.join('\r\n ')
  const card = `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nPHOTO;ENCODING=b;TYPE=JPEG:${folded}\r\nEND:VCARD\r\n`
  const res = await importFile(b, 'contacts', 'ada.vcf', card)
  t.equal(res.status, 200)
  t.equal(res.body.data.imported, 1)
  const many = `BEGIN:VCARD\r\nVERSION:2.1\r\nFN:Bob\r\nTEL${';CELL'.repeat(100_000)}:123\r\nEND:VCARD\r\n`
  t.equal((await importFile(b, 'contacts', 'bob.vcf', many)).status, 200, '100,000 parameters on one line')
})

/** A tar.gz of one member of `size` zero bytes, gzipped as it streams (the test never holds it whole). */
async function gzipBomb(name: string, size: number): Promise<Buffer> {
  const header = Buffer.alloc(512)
  header.write(name, 0)
  header.write('0000644\0', 100)
  header.write('0000000\0', 108)
  header.write('0000000\0', 116)
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124)
  header.write('00000000000\0', 136)
  header.write('0', 156)
  header.write('ustar\0', 257)
  header.write('00', 263)
  header.fill(' ', 148, 156)
  let sum = 0
  for (const byte of header) sum += byte
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
  const gzip = createGzip({ level: 9 })
  const parts: Buffer[] = []
  gzip.on('data', (chunk: Buffer) => parts.push(chunk))
  const done = new Promise((resolve) => gzip.on('end', resolve))
  gzip.write(header)
  const zeros = Buffer.alloc(1024 * 1024)
  for (let left = size; left > 0; left -= zeros.length) {
    if (!gzip.write(left >= zeros.length ? zeros : zeros.subarray(0, left))) await new Promise((r) => gzip.once('drain', r))
  }
  gzip.end(Buffer.alloc(1024))
  await done
  return Buffer.concat(parts)
}

t.test('a gzip bomb is refused while it inflates, not after', async (t) => {
  t.setTimeout(120_000)
  const b = await bench(t)
  const member = await gzipBomb('vault/huge.md', 40 * 1024 * 1024)
  t.ok(member.length < 100_000, `a ${member.length}-byte upload`)
  const one = await importFile(b, 'notes', 'vault.tar.gz', member)
  t.equal(one.status, 413, 'a note over 16 MiB unpacked')
  t.equal(one.body.error.code, 'PAYLOAD_TOO_LARGE')

  const skipped = await gzipBomb('vault/blob.bin', 300 * 1024 * 1024)
  const before = process.memoryUsage().arrayBuffers
  let peak = before
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 5)
  const all = await importFile(b, 'notes', 'vault.tar.gz', skipped)
  clearInterval(sample)
  t.equal(all.status, 413, 'an archive over 256 MiB unpacked, even in members that are not notes')
  t.ok(peak - before < 64 * 1024 * 1024, `memory grew by ${Math.round((peak - before) / 1e6)} MB while refusing it`)
})

t.test('no value can forge a line or a component in an export', async (t) => {
  const b = await bench(t)
  const forged = 'x\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nSUMMARY:forged'
  const badEmail = await b.call('POST', '/events', {
    title: 'Standup',
    start_at: '2026-11-20T09:00:00Z',
    attendees: [{ email: `eve@example.test${forged}` }],
  })
  t.equal(badEmail.status, 400, 'an attendee email with CR/LF is refused')
  t.equal(badEmail.body.error.code, 'VALIDATION_ERROR')

  const event = await b.call('POST', '/events', {
    title: `Standup${forged}`,
    location: `Room "1";${forged}`,
    start_at: '2026-11-20T09:00:00Z',
    attendees: [{ email: 'eve@example.test', name: `Eve "E" ${forged}` }],
    custom_fields: { [`k${forged}`]: `v${forged}` },
  })
  t.equal(event.status, 201)
  const ics = (await b.app.inject({ method: 'GET', url: '/api/v1/events/export', headers: auth(b.token) })).body
  t.equal(ics.match(/^BEGIN:VEVENT\r$/gm)?.length, 1, 'one VEVENT')
  t.notMatch(ics, /^SUMMARY:forged/m)
  t.ok(
    ics.split('\r\n').every((line) => !/[\r\n]/.test(line)),
    'no bare CR or LF inside a line',
  )
  const back = await importFile(b, 'events', 'back.ics', ics)
  t.equal(back.body.data.imported, 1)
  const copy = await b.call('GET', `/events/${back.body.data.ids[0]}`)
  t.equal(copy.body.data.title, `Standup${forged}`.replace(/\r\n/g, '\n'), 'the title survives the round trip as text')

  const contact = await b.call('POST', '/contacts', {
    display_name: `Mallory${forged.replace(/VEVENT/g, 'VCARD')}`,
    emails: [{ address: 'mallory@example.test' }],
    notes: `a\r\nEND:VCARD\r\nBEGIN:VCARD\r\nFN:forged`,
  })
  t.equal(contact.status, 201)
  const vcf = (await b.app.inject({ method: 'GET', url: '/api/v1/contacts/export', headers: auth(b.token) })).body
  t.equal(vcf.match(/^BEGIN:VCARD\r$/gm)?.length, 1, 'one VCARD')
  t.notMatch(vcf, /^FN:forged/m)
  const badAddress = await b.call('POST', '/contacts', { display_name: 'X', emails: [{ address: 'x@y\r\nFN:forged' }] })
  t.equal(badAddress.status, 400, 'a contact email with CR/LF is refused')
})
