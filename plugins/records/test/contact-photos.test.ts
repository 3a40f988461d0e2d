import t from 'tap'
import exifr from 'exifr'
import sharp from 'sharp'
import { auth, type TestApp } from '../../../test/helper.js'
import { cameraJpeg, pngBomb, smallPng } from '../../../test/image-fixtures.js'
import { bench, exportOf, importInto } from './records-app.js'
import { household } from './sharing-app.js'

/** Contact photos through the HTTP API: upload, serve, remove, refusals, sharing, vCard PHOTO. */

const put = (app: TestApp, token: string, id: string, body: Buffer | string, type: string) =>
  app.inject({ method: 'PUT', url: `/api/v1/contacts/${id}/photo`, headers: auth(token, { 'content-type': type }), payload: body })
const get = (app: TestApp, token: string, id: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/photo`, headers: auth(token, headers) })

t.test('PUT, GET and DELETE a photo: stored re-encoded, GPS and EXIF gone, the contact changes with it', async (t) => {
  const b = await bench(t)
  const contact = (await b.call('POST', '/contacts', { display_name: 'Ada Lovelace' })).body.data
  t.equal(contact.has_photo, false)
  const camera = await cameraJpeg()
  t.ok(await exifr.gps(camera), 'the upload carries GPS coordinates')

  const res = await put(b.app, b.token, contact.id, camera, 'image/jpeg')
  t.equal(res.statusCode, 200, res.body)
  const updated = res.json().data
  t.equal(updated.has_photo, true)
  t.not(updated.etag, contact.etag, 'the contact (and its vCard) has a new ETag')
  t.ok(b.events.some((e) => e.type === 'contact.updated' && e.id === contact.id))

  const served = await get(b.app, b.token, contact.id)
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'image/jpeg')
  t.match(served.headers['cache-control'], /private/)
  const etag = String(served.headers.etag)
  t.match(etag, /^"[\w-]+"$/)
  const meta = await sharp(served.rawPayload).metadata()
  t.same([meta.format, meta.width, meta.height], ['jpeg', 384, 512], 'upright (orientation applied) and inside 512×512')
  t.equal(meta.exif, undefined, 'no EXIF left')
  t.equal(await exifr.gps(served.rawPayload).catch(() => undefined), undefined, 'no GPS left')
  t.equal((await get(b.app, b.token, contact.id, { 'if-none-match': etag })).statusCode, 304)

  // A PNG replaces it (stored as JPEG too).
  t.equal((await put(b.app, b.token, contact.id, await smallPng(), 'image/png')).statusCode, 200)
  const again = await get(b.app, b.token, contact.id)
  t.not(again.headers.etag, etag)
  t.equal((await sharp(again.rawPayload).metadata()).format, 'jpeg')

  const removed = await b.call('DELETE', `/contacts/${contact.id}/photo`)
  t.equal(removed.status, 200)
  t.equal(removed.body.data.has_photo, false)
  t.equal((await get(b.app, b.token, contact.id)).statusCode, 404)
  t.equal((await b.call('DELETE', `/contacts/${contact.id}/photo`)).status, 404)
})

t.test('bad uploads: 413, 415, 400, a bomb; nothing stored, never a 500', async (t) => {
  const b = await bench(t)
  const contact = (await b.call('POST', '/contacts', { display_name: 'Grace Hopper' })).body.data
  const camera = await cameraJpeg()
  const cases: Array<[string, Buffer | string, string, number, string]> = [
    ['over 5 MiB', Buffer.concat([camera, Buffer.alloc(5 * 1024 * 1024)]), 'image/jpeg', 413, 'PAYLOAD_TOO_LARGE'],
    ['text/plain', 'hello', 'text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/octet-stream', camera, 'application/octet-stream', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['declared JPEG, not an image', Buffer.from('<html>not a picture</html>'), 'image/jpeg', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a broken JPEG', camera.subarray(0, 300), 'image/jpeg', 400, 'VALIDATION_ERROR'],
    ['a 50,000×50,000 PNG header', pngBomb(), 'image/png', 413, 'PAYLOAD_TOO_LARGE'],
    ['an empty body', Buffer.alloc(0), 'image/png', 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ]
  for (const [what, body, type, status, code] of cases) {
    const res = await put(b.app, b.token, contact.id, body, type)
    t.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 200)}`)
    t.equal(res.json().error.code, code, what)
  }
  const after = (await b.call('GET', `/contacts/${contact.id}`)).body.data
  t.equal(after.has_photo, false, 'nothing stored')
  t.equal(after.etag, contact.etag, 'the contact is unchanged')
  t.equal((await get(b.app, b.token, contact.id)).statusCode, 404)
  t.equal((await put(b.app, b.token, '00000000-0000-4000-8000-000000000000', camera, 'image/jpeg')).statusCode, 404)
})

t.test('the trash hides the photo; erasing the contact erases it', async (t) => {
  const b = await bench(t)
  const contact = (await b.call('POST', '/contacts', { display_name: 'Alan Turing' })).body.data
  t.equal((await put(b.app, b.token, contact.id, await cameraJpeg(), 'image/jpeg')).statusCode, 200)
  await b.call('DELETE', `/contacts/${contact.id}`)
  t.equal((await get(b.app, b.token, contact.id)).statusCode, 404, 'not served from the trash')
  t.equal((await put(b.app, b.token, contact.id, await cameraJpeg(), 'image/jpeg')).statusCode, 404)
  await b.call('POST', `/contacts/${contact.id}/restore`)
  t.equal((await get(b.app, b.token, contact.id)).statusCode, 200, 'back with its contact')
  await b.call('DELETE', `/contacts/${contact.id}?permanent=true`)
  const db = (b.app as unknown as { hearth: { db: import('better-sqlite3').Database } }).hearth.db
  t.equal(db.prepare('SELECT count(*) AS n FROM contact_photos WHERE contact_id = ?').pluck().get(contact.id), 0)
})

t.test('a shared address book: read share GETs, write share PUTs and DELETEs, others get 404', async (t) => {
  const { app, members } = await household(t)
  const [parent, reader, writer] = members as [(typeof members)[0], (typeof members)[0], (typeof members)[0]]
  const contact = (await parent.call('POST', '/contacts', { display_name: 'Grandma' })).body.data
  t.equal((await put(app, parent.token, contact.id, await cameraJpeg(), 'image/jpeg')).statusCode, 200)
  t.equal((await get(app, reader.token, contact.id)).statusCode, 404, 'not shared yet')
  t.equal((await put(app, writer.token, contact.id, await smallPng(), 'image/png')).statusCode, 404)
  await parent.call('POST', '/shares', { kind: 'addressbook', with: reader.id, access: 'read' })
  await parent.call('POST', '/shares', { kind: 'addressbook', with: writer.id, access: 'write' })
  t.equal((await get(app, reader.token, contact.id)).statusCode, 200)
  t.equal((await put(app, reader.token, contact.id, await smallPng(), 'image/png')).statusCode, 403)
  t.equal((await reader.call('DELETE', `/contacts/${contact.id}/photo`)).status, 403)
  t.equal((await put(app, writer.token, contact.id, await smallPng(), 'image/png')).statusCode, 200)
  t.equal((await writer.call('DELETE', `/contacts/${contact.id}/photo`)).status, 200)
  t.equal((await get(app, parent.token, contact.id)).statusCode, 404)
})

const FOLD = /\r\n /g
const cardOf = (version: '3.0' | '4.0', b64: string) =>
  [
    'BEGIN:VCARD',
    `VERSION:${version}`,
    'FN:Photo Person',
    version === '4.0' ? `PHOTO:data:image/jpeg;base64,${b64}` : `PHOTO;ENCODING=b;TYPE=JPEG:${b64}`,
    'END:VCARD',
    '',
  ]
    .join('\r\n')
    // Folded as clients write it.
    .replace(/(.{75})/g, '$1\r\n ')

for (const version of ['3.0', '4.0'] as const) {
  t.test(`vCard ${version} PHOTO: imported re-encoded, exported inline`, async (t) => {
    const b = await bench(t)
    const camera = await cameraJpeg()
    const imported = await importInto(b, 'contacts', 'photo.vcf', cardOf(version, camera.toString('base64')))
    t.equal(imported.status, 200)
    t.equal(imported.data.imported, 1)
    const id = imported.data.ids[0] as string
    t.equal((await b.call('GET', `/contacts/${id}`)).body.data.has_photo, true)
    const served = await get(b.app, b.token, id)
    t.equal(served.statusCode, 200)
    t.equal(await exifr.gps(served.rawPayload).catch(() => undefined), undefined, 'GPS stripped on import')

    const file = (
      await b.app.inject({ method: 'GET', url: `/api/v1/contacts/export?version=${version}`, headers: auth(b.token) })
    ).body.replace(FOLD, '')
    const head = version === '4.0' ? 'PHOTO:data:image/jpeg;base64,' : 'PHOTO;ENCODING=b;TYPE=JPEG:'
    const line = file.split('\r\n').find((l) => l.startsWith(head))
    t.ok(line, `the export carries ${head}`)
    t.same(Buffer.from((line as string).slice(head.length), 'base64'), served.rawPayload, 'the stored photo, exactly')
    t.ok(
      (await exportOf(b, 'contacts')).split('\r\n').every((l) => l.length <= 75),
      'every line folded at 75 octets',
    )
  })
}

t.test('import: a PHOTO by URL is not fetched, a broken photo does not cost the contact', async (t) => {
  const b = await bench(t)
  const file = [
    'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:By Url\r\nPHOTO;VALUE=uri:https://example.test/me.jpg\r\nEND:VCARD\r\n',
    'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Broken\r\nPHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQ==\r\nEND:VCARD\r\n',
  ].join('')
  const imported = await importInto(b, 'contacts', 'two.vcf', file)
  t.equal(imported.data.imported, 2)
  for (const id of imported.data.ids) t.equal((await b.call('GET', `/contacts/${id}`)).body.data.has_photo, false)
  t.notMatch(await exportOf(b, 'contacts'), /example\.test/, 'the URL is dropped, documented in docs/api.md')
})
