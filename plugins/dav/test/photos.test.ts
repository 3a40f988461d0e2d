import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import exifr from 'exifr'
import sharp from 'sharp'
import { auth } from '../../../test/helper.js'
import { cameraJpeg } from '../../../test/image-fixtures.js'
import { davBench } from './dav-app.js'
import { noPythonModule, PYTHON } from './daemon.js'

/**
 * Contact photos over CardDAV: a phone's card with an inline PHOTO (vCard 3.0 `ENCODING=b`, 4.0
 * `data:` URI) stores the photo re-encoded, without its EXIF; the card read back carries the stored
 * photo; a photo set through the JSON API shows in the card (new ETag); a card without PHOTO removes it.
 * python3-vobject writes a card with a photo and reads Hearth's answer back.
 */
const noVobject = noPythonModule('vobject')

const unfolded = (text: string) => text.replace(/\r\n[ \t]/g, '')
const photoOf = (card: string): Buffer | null => {
  const line = unfolded(card)
    .split('\r\n')
    .find((l) => l.startsWith('PHOTO'))
  if (!line) return null
  const value = line.slice(line.indexOf(':') + 1)
  return Buffer.from(value.replace(/^data:image\/jpeg;base64,/, ''), 'base64')
}
const fold = (text: string) => text.replace(/([^\r\n]{75})(?=[^\r\n])/g, '$1\r\n ')

for (const version of ['3.0', '4.0'] as const) {
  t.test(`a vCard ${version} PUT with an inline photo stores it re-encoded; GET carries it`, async (t) => {
    const b = await davBench(t)
    const camera = (await cameraJpeg()).toString('base64')
    const photo = version === '4.0' ? `PHOTO:data:image/jpeg;base64,${camera}` : `PHOTO;ENCODING=b;TYPE=JPEG:${camera}`
    const card = fold(`BEGIN:VCARD\r\nVERSION:${version}\r\nUID:photo-${version}\r\nFN:Phone Friend\r\n${photo}\r\nEND:VCARD\r\n`)
    const url = `/dav/addressbooks/contacts/friend-${version}.vcf`
    const put = await b.dav('PUT', url, card, { 'content-type': 'text/vcard' })
    t.equal(put.status, 201, put.body)

    const contact = (await b.json('GET', '/api/v1/contacts')).body.data[0]
    t.equal(contact.has_photo, true)
    t.equal(put.headers.etag, contact.etag, "the PUT's ETag is the record's, photo included")

    const got = await b.dav('GET', url)
    t.equal(got.headers.etag, put.headers.etag)
    t.match(unfolded(got.body), version === '4.0' ? /\r\nPHOTO:data:image\/jpeg;base64,/ : /\r\nPHOTO;ENCODING=b;TYPE=JPEG:/)
    t.equal(unfolded(got.body).match(/\r\nPHOTO[;:]/g)?.length, 1, 'one PHOTO')
    t.ok(
      got.body.split('\r\n').every((l) => Buffer.byteLength(l) <= 75),
      'folded at 75 octets',
    )
    const stored = photoOf(got.body) as Buffer
    const meta = await sharp(stored).metadata()
    t.same([meta.format, meta.width, meta.height, meta.exif], ['jpeg', 384, 512, undefined], 're-encoded, upright, bounded, no EXIF')
    t.equal(await exifr.gps(stored).catch(() => undefined), undefined, 'no GPS')
    const served = await b.app.inject({ method: 'GET', url: `/api/v1/contacts/${contact.id}/photo`, headers: auth(b.token) })
    t.same(served.rawPayload, stored, 'the JSON API serves the same photo')

    // A photo set on the JSON side shows in the card.
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#10a010' } })
      .png()
      .toBuffer()
    const set = await b.app.inject({
      method: 'PUT',
      url: `/api/v1/contacts/${contact.id}/photo`,
      headers: auth(b.token, { 'content-type': 'image/png' }),
      payload: png,
    })
    t.equal(set.statusCode, 200)
    const after = await b.dav('GET', url)
    t.not(after.headers.etag, got.headers.etag, 'the card has a new ETag')
    t.same([(await sharp(photoOf(after.body) as Buffer).metadata()).width], [64])

    // The phone removes the photo: the card comes without PHOTO.
    const bare = `BEGIN:VCARD\r\nVERSION:${version}\r\nUID:photo-${version}\r\nFN:Phone Friend\r\nEND:VCARD\r\n`
    t.equal((await b.dav('PUT', url, bare, { 'content-type': 'text/vcard', 'if-match': String(after.headers.etag) })).status, 204)
    t.equal((await b.json('GET', `/api/v1/contacts/${contact.id}`)).body.data.has_photo, false)
    t.notMatch((await b.dav('GET', url)).body, /PHOTO/)
  })
}

t.test('a PHOTO by URL over CardDAV is kept as written and never fetched', async (t) => {
  const b = await davBench(t)
  const card = 'BEGIN:VCARD\r\nVERSION:4.0\r\nUID:by-url\r\nFN:Url Person\r\nPHOTO:https://photos.example.test/u.jpg\r\nEND:VCARD\r\n'
  t.equal((await b.dav('PUT', '/dav/addressbooks/contacts/u.vcf', card, { 'content-type': 'text/vcard' })).status, 201)
  t.equal((await b.json('GET', '/api/v1/contacts')).body.data[0].has_photo, false)
  t.match((await b.dav('GET', '/dav/addressbooks/contacts/u.vcf')).body, 'PHOTO:https://photos.example.test/u.jpg')
})

t.test(
  'python3-vobject writes a card with a photo; it round-trips through CardDAV and the vCard import',
  { skip: noVobject },
  async (t) => {
    const b = await davBench(t)
    const dir = mkdtempSync(join(tmpdir(), 'hearth-vobject-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const jpeg = join(dir, 'in.jpg')
    writeFileSync(jpeg, await cameraJpeg(1200, 900))
    const write = spawnSync(
      PYTHON,
      [
        '-c',
        `import sys, vobject
c = vobject.vCard()
c.add('fn').value = 'Vobject Photo'
c.add('n').value = vobject.vcard.Name(family='Photo', given='Vobject')
p = c.add('photo')
p.value = open(sys.argv[1], 'rb').read()
p.encoding_param = 'b'
p.type_param = 'JPEG'
sys.stdout.write(c.serialize())`,
        jpeg,
      ],
      { encoding: 'utf8' },
    )
    t.equal(write.status, 0, write.stderr)
    const card = write.stdout
    t.match(card, /PHOTO;ENCODING=b;TYPE=JPEG:/i)

    const read = (text: string) => {
      const file = join(dir, 'out.vcf')
      writeFileSync(file, text)
      const r = spawnSync(
        PYTHON,
        [
          '-c',
          `import sys, vobject
c = vobject.readOne(open(sys.argv[1]).read())
sys.stdout.write(c.fn.value + '|' + str(len(c.photo.value)) + '|' + c.photo.value[:3].hex())`,
          file,
        ],
        { encoding: 'utf8' },
      )
      t.equal(r.status, 0, r.stderr)
      return r.stdout.split('|')
    }

    t.equal((await b.dav('PUT', '/dav/addressbooks/contacts/vobject.vcf', card, { 'content-type': 'text/vcard' })).status, 201)
    const [fn, size, magic] = read((await b.dav('GET', '/dav/addressbooks/contacts/vobject.vcf')).body)
    t.equal(fn, 'Vobject Photo')
    t.equal(magic, 'ffd8ff', 'vobject decodes a JPEG')
    t.ok(Number(size) > 500, `of ${size} bytes`)

    const imported = await b.app.inject({
      method: 'POST',
      url: '/api/v1/contacts/import',
      headers: auth(b.token, { 'content-type': 'multipart/form-data; boundary=xx' }),
      payload: `--xx\r\nContent-Disposition: form-data; name="file"; filename="v.vcf"\r\nContent-Type: text/vcard\r\n\r\n${card}\r\n--xx--\r\n`,
    })
    t.equal(imported.json().data.imported, 1)
    const exported = await b.app.inject({ method: 'GET', url: '/api/v1/contacts/export?version=3.0', headers: auth(b.token) })
    const cards = exported.body.split('END:VCARD').filter((c) => c.includes('BEGIN:VCARD'))
    t.equal(cards.length, 2)
    for (const c of cards) t.equal(read(`${c.trim()}\r\nEND:VCARD\r\n`)[2], 'ffd8ff', 'each exported card carries a JPEG vobject reads')
  },
)
