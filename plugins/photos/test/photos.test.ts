import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import t from 'tap'
import { addUser, auth, build, owner, type TestApp } from '../../../test/helper.js'
import { startProviderStub } from '../../ai/test/provider-stub.js'
import { expectProOnly, setTier } from '../../sync/test/pro-gate.js'
import { makeJpeg } from './jpeg-fixture.js'

/**
 * Photo AI indexing through the HTTP API: JPEGs with real EXIF made here,
 * captions and labels from the vision model of a local Ollama-speaking provider (/api/chat with
 * images), incremental runs (unchanged files skipped, changed and removed ones followed), search by
 * caption, label and date, provider failures kept per photo and retried, tier gates.
 */

async function waitForPhotos(app: TestApp, headers: Record<string, string>) {
  for (let i = 0; i < 500; i++) {
    const s = (await app.inject({ method: 'GET', url: '/api/v1/photos/index', headers })).json().data
    if (s.status !== 'running') return s
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error('photo index did not finish')
}

t.test('photos are indexed from EXIF and the vision model, incrementally, and found by words and dates', async (t) => {
  const stub = await startProviderStub(t)
  const folder = mkdtempSync(join(tmpdir(), 'hearth-photos-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  mkdirSync(join(folder, 'holidays', '2024'), { recursive: true })
  writeFileSync(
    join(folder, 'holidays', '2024', 'beach.jpg'),
    makeJpeg({
      make: 'Fujifilm',
      model: 'X100V',
      takenAt: '2024:07:14 19:30:00',
      offset: '+02:00',
      gps: { lat: 43.5528, lon: 7.0174 },
      scene: 'sandy beach sunset',
    }),
  )
  writeFileSync(
    join(folder, 'bike.jpg'),
    makeJpeg({ make: 'Apple', model: 'iPhone 13', takenAt: '2023:03:02 10:00:00', scene: 'red bicycle' }),
  )
  writeFileSync(join(folder, 'cat.JPEG'), makeJpeg({ takenAt: '2024:12:24 08:00:00', scene: 'sleeping cat' }))
  writeFileSync(join(folder, 'notes.txt'), 'not a photo')
  writeFileSync(join(folder, '.hidden.jpg'), makeJpeg({ scene: 'hidden' }))

  const decoded = await sharp(makeJpeg({ scene: 'check' }), { failOn: 'warning' }).stats()
  t.equal(decoded.channels[0].mean, 128, 'the hand-written JPEG decodes cleanly (libvips): uniform grey')

  const app = await build(t, {
    env: { HEARTH_TIER: 'pro', HEARTH_DATA_PHOTOS_DIR: folder, HEARTH_AI_OLLAMA_URL: stub.url, HEARTH_AI_TIMEOUT_MS: '10000' },
  })
  const o = await owner(app)
  const headers = auth(o.token)

  // Without AI settings: EXIF only.
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/photos/index', headers })).json().data.status, 'empty')
  const first = await app.inject({ method: 'POST', url: '/api/v1/photos/index', headers })
  t.equal(first.statusCode, 202)
  t.match(await waitForPhotos(app, headers), { status: 'ready', total: 3, done: 3, indexed: 3, skipped: 0, failed: 0 })
  const exifOnly = (await app.inject({ method: 'GET', url: '/api/v1/photos', headers })).json()
  t.equal(exifOnly.meta.total, 3)
  t.same(
    exifOnly.data.map((p: { path: string }) => p.path),
    ['cat.JPEG', 'holidays/2024/beach.jpg', 'bike.jpg'],
    'newest first; dot-files and other files left out',
  )
  const beach = exifOnly.data[1]
  t.match(beach, {
    taken_at: '2024-07-14T17:30:00.000Z',
    camera: { make: 'Fujifilm', model: 'X100V' },
    caption: null,
    labels: [],
    has_thumbnail: true,
    error: null,
  })
  t.ok(Math.abs(beach.gps.latitude - 43.5528) < 1e-4 && Math.abs(beach.gps.longitude - 7.0174) < 1e-4, 'GPS from EXIF')
  t.equal(exifOnly.data[2].taken_at, '2023-03-02T10:00:00.000Z', 'no offset: read as UTC')
  t.equal(stub.calls.length, 0)

  // With a vision model: the photos without a caption are described.
  await app.inject({
    method: 'PUT',
    url: '/api/v1/ai/settings',
    headers,
    payload: { provider: 'ollama', model: 'llava', embedding_model: 'nomic-embed-text' },
  })
  await app.inject({ method: 'POST', url: '/api/v1/photos/index', headers })
  t.match(await waitForPhotos(app, headers), { total: 3, indexed: 3, skipped: 0 })
  t.equal(stub.calls.filter((c) => c.path === '/api/chat').length, 3)
  const chat = stub.calls[0].body as { model: string; messages: Array<{ images: string[]; content: string }> }
  t.equal(chat.model, 'llava')
  t.match(chat.messages[0].content, /caption/)
  t.ok(
    Buffer.from(chat.messages[0].images[0], 'base64')
      .subarray(0, 2)
      .equals(Buffer.from([0xff, 0xd8])),
    'the JPEG itself is sent',
  )

  const bikes = (await app.inject({ method: 'GET', url: '/api/v1/photos?search=bicycle', headers })).json()
  t.equal(bikes.meta.total, 1)
  t.match(bikes.data[0], { path: 'bike.jpg', caption: 'A photo of red bicycle', labels: ['red', 'bicycle'] })
  t.same(
    (await app.inject({ method: 'GET', url: '/api/v1/photos?search=SUNSET+beach', headers }))
      .json()
      .data.map((p: { path: string }) => p.path),
    ['holidays/2024/beach.jpg'],
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/photos?search=bicycle+cat', headers })).json().meta.total,
    0,
    'every word must match',
  )
  const in2024 = (await app.inject({ method: 'GET', url: '/api/v1/photos?from=2024-01-01&to=2024-12-31', headers })).json()
  t.same(
    in2024.data.map((p: { path: string }) => p.path),
    ['cat.JPEG', 'holidays/2024/beach.jpg'],
  )
  const oneDay = (await app.inject({ method: 'GET', url: '/api/v1/photos?from=2024-07-14&to=2024-07-14', headers })).json()
  t.same(
    oneDay.data.map((p: { path: string }) => p.path),
    ['holidays/2024/beach.jpg'],
    'a date bound is the whole day',
  )
  const instant = (await app.inject({ method: 'GET', url: '/api/v1/photos?to=2024-07-14T17:29:59Z', headers })).json()
  t.same(
    instant.data.map((p: { path: string }) => p.path),
    ['bike.jpg'],
  )
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/photos?search=cat&from=2024-12-25', headers })).json().meta.total, 0)

  // Incremental: nothing changed → nothing sent; a changed file and a removed one are followed.
  const calls = stub.calls.length
  await app.inject({ method: 'POST', url: '/api/v1/photos/index', headers })
  t.match(await waitForPhotos(app, headers), { total: 3, skipped: 3, indexed: 0, removed: 0 })
  t.equal(stub.calls.length, calls, 'unchanged files are not sent again')
  const bike = join(folder, 'bike.jpg')
  writeFileSync(bike, makeJpeg({ make: 'Apple', model: 'iPhone 13', takenAt: '2023:03:02 10:00:00', scene: 'blue bicycle with basket' }))
  utimesSync(bike, new Date(), new Date(Date.now() + 5000))
  unlinkSync(join(folder, 'cat.JPEG'))
  await app.inject({ method: 'POST', url: '/api/v1/photos/index', headers })
  t.match(await waitForPhotos(app, headers), { total: 2, skipped: 1, indexed: 1, removed: 1 })
  t.equal(stub.calls.length, calls + 1)
  t.match((await app.inject({ method: 'GET', url: '/api/v1/photos?search=basket', headers })).json().data, [
    { path: 'bike.jpg', caption: 'A photo of blue bicycle with basket' },
  ])
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/photos?search=cat', headers })).json().meta.total, 0)

  // The vision model fails: the photo keeps its EXIF and the error, and the next run retries it.
  stub.state = 'error'
  writeFileSync(join(folder, 'dog.jpg'), makeJpeg({ takenAt: '2025:01:01 12:00:00', scene: 'happy dog' }))
  await app.inject({ method: 'POST', url: '/api/v1/photos/index', headers })
  t.match(await waitForPhotos(app, headers), { total: 3, failed: 1, skipped: 2 })
  const failed = (await app.inject({ method: 'GET', url: '/api/v1/photos?from=2025-01-01', headers })).json().data[0]
  t.match(failed, {
    path: 'dog.jpg',
    caption: null,
    taken_at: '2025-01-01T12:00:00.000Z',
    error: /vision model: provider answered 503: model overloaded/,
  })
  stub.state = 'up'
  await app.inject({ method: 'POST', url: '/api/v1/photos/index', headers })
  t.match(await waitForPhotos(app, headers), { total: 3, failed: 0, indexed: 1, skipped: 2 })
  t.match((await app.inject({ method: 'GET', url: '/api/v1/photos?search=dog', headers })).json().data, [
    { caption: 'A photo of happy dog', error: null },
  ])

  // Thumbnails (sharp): the fixture is 8×8, never enlarged; a large photo is sent to the model downscaled.
  const thumb = await app.inject({ method: 'GET', url: `/api/v1/photos/${failed.id}/thumbnail`, headers })
  t.equal(thumb.statusCode, 200)
  t.equal(thumb.headers['content-type'], 'image/jpeg')
  t.match(await sharp(thumb.rawPayload).metadata(), { format: 'jpeg', width: 8, height: 8 })
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/photos/nope/thumbnail', headers })).statusCode, 404)
  const large = await sharp({ create: { width: 2400, height: 1800, channels: 3, background: '#3a7' } })
    .jpeg()
    .toBuffer()
  writeFileSync(join(folder, 'large.jpg'), large)
  await app.inject({ method: 'POST', url: '/api/v1/photos/index', headers })
  t.match(await waitForPhotos(app, headers), { total: 4, indexed: 1, skipped: 3 })
  const sent = stub.calls.at(-1)!.body as { messages: Array<{ images: string[] }> }
  t.match(await sharp(Buffer.from(sent.messages[0].images[0], 'base64')).metadata(), { format: 'jpeg', width: 1024, height: 768 })
  const largeRow = (await app.inject({ method: 'GET', url: '/api/v1/photos?search=large', headers })).json().data[0]
  const largeThumb = await app.inject({ method: 'GET', url: `/api/v1/photos/${largeRow.id}/thumbnail`, headers })
  t.match(await sharp(largeThumb.rawPayload).metadata(), { width: 320, height: 240 })
  for (const q of ['from=yesterday', 'to=2024-13-45', 'limit=500']) {
    const res = await app.inject({ method: 'GET', url: `/api/v1/photos?${q}`, headers })
    t.equal(res.statusCode, 400, q)
    t.equal(res.json().error.code, 'INVALID_QUERY')
  }
})

t.test('an OpenAI-compatible vision model gets the photo as an image_url data URL in /v1/chat/completions', async (t) => {
  const stub = await startProviderStub(t)
  stub.expectedKey = 'sk-vision-key-0123456789abcdef'
  const folder = mkdtempSync(join(tmpdir(), 'hearth-photos-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  writeFileSync(join(folder, 'harbour.jpg'), makeJpeg({ takenAt: '2022:05:01 07:00:00', scene: 'fishing boats harbour' }))
  const app = await build(t, { env: { HEARTH_TIER: 'pro', HEARTH_DATA_PHOTOS_DIR: folder, HEARTH_AI_COMPATIBLE_URL: stub.url } })
  const headers = auth((await owner(app)).token)
  const settings = { provider: 'openai-compatible', model: 'vision-7b', embedding_model: 'embed', api_key: stub.expectedKey }
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers, payload: settings })
  await app.inject({ method: 'POST', url: '/api/v1/photos/index', headers })
  t.match(await waitForPhotos(app, headers), { status: 'ready', indexed: 1, failed: 0 })
  const call = stub.calls.find((c) => c.path === '/v1/chat/completions')!
  t.equal(call.authorization, `Bearer ${stub.expectedKey}`)
  t.equal(call.body.model, 'vision-7b')
  const parts = (call.body.messages as Array<{ content: Array<{ type: string; image_url?: { url: string } }> }>)[0].content
  t.match(parts, [{ type: 'text' }, { type: 'image_url', image_url: { url: /^data:image\/jpeg;base64,\/9j\// } }])
  t.match((await app.inject({ method: 'GET', url: '/api/v1/photos?search=boats', headers })).json().data, [
    { path: 'harbour.jpg', caption: 'A photo of fishing boats harbour', labels: ['fishing', 'boats', 'harbour'] },
  ])
})

t.test('photo routes are pro: a free user gets 403 FEATURE_NOT_AVAILABLE', async (t) => {
  const app = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const u = await addUser(app, o.token)
  await setTier(t, app, o.token, u.userId, 'free')
  await expectProOnly(t, app, u.token, [
    ['GET', '/api/v1/photos'],
    ['GET', '/api/v1/photos?search=cat'],
    ['POST', '/api/v1/photos/index'],
    ['GET', '/api/v1/photos/index'],
    ['GET', '/api/v1/photos/00000000-0000-0000-0000-000000000000/thumbnail'],
  ])
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/photos', headers: auth(o.token) })).statusCode, 200, 'the pro owner is let in')
})
