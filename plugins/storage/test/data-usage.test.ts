import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { auth, build, owner } from '../../../test/helper.js'
import { nasRunner } from './machine.js'

const url = '/api/v1/hal/storage/data-usage'

t.test('each category measured from its configured folder', async (t) => {
  const photos = t.testdir({ a: { 'one.jpg': 'x'.repeat(1200), nested: { 'two.jpg': 'y'.repeat(34) } }, 'three.raw': 'z'.repeat(66) })
  const app = await build(t, { run: nasRunner(), env: { HEARTH_DATA_PHOTOS_DIR: photos, HEARTH_DATA_MODELS_DIR: join(photos, 'missing') } })
  mkdirSync(join(app.dataDir, 'backups'))
  writeFileSync(join(app.dataDir, 'backups', 'nightly.tar'), Buffer.alloc(2048))
  const { token } = await owner(app)
  const data = (await app.inject({ method: 'GET', url, headers: auth(token) })).json().data as Array<Record<string, unknown>>
  t.same(
    data.map((c) => c.name),
    ['files', 'photos', 'attachments', 'models', 'media', 'crypto', 'backups', 'database'],
  )
  const by = Object.fromEntries(data.map((c) => [c.name, c]))
  t.same(by.photos, { name: 'photos', label: 'Photos', size_bytes: 1300, status: 'ok' })
  t.same(by.backups, { name: 'backups', label: 'Backups', size_bytes: 2048, status: 'ok' }, 'default folder <data>/backups')
  t.same(by.models, { name: 'models', label: 'AI models', size_bytes: 0, status: 'ok' }, 'a missing folder holds nothing')
  t.ok((by.database?.size_bytes as number) > 0, 'database: the SQLite files of the data folder')
})

t.test('a category past its deadline answers status timeout, the others still ok', async (t) => {
  // 10 folders x 50 files: far more than 1 ms of fs calls.
  const tree: Record<string, Record<string, string>> = {}
  for (let d = 0; d < 10; d++) tree[`d${d}`] = Object.fromEntries(Array.from({ length: 50 }, (_, f) => [`f${f}`, 'data']))
  const media = t.testdir(tree)
  const app = await build(t, { run: nasRunner(), env: { HEARTH_DATA_MEDIA_DIR: media, HEARTH_STORAGE_USAGE_TIMEOUT_MS: '1' } })
  const { token } = await owner(app)
  const res = await app.inject({ method: 'GET', url, headers: auth(token) })
  const by = Object.fromEntries((res.json().data as Array<{ name: string }>).map((c) => [c.name, c]))
  t.match(by.media, { name: 'media', status: 'timeout' })
  t.ok(
    (by.media as unknown as { size_bytes: number }).size_bytes < 10 * 50 * 4,
    'the walk stopped at the deadline: only what was counted in time',
  )
  t.equal(Object.keys(by).length, 8, 'every category answers, each under its own deadline')
})

t.test('the event loop keeps serving while a category is walked', async (t) => {
  const tree: Record<string, Record<string, string>> = {}
  for (let d = 0; d < 20; d++) tree[`d${d}`] = Object.fromEntries(Array.from({ length: 100 }, (_, f) => [`f${f}`, 'data']))
  const files = t.testdir(tree)
  const app = await build(t, { run: nasRunner(), env: { HEARTH_DATA_FILES_DIR: files } })
  const { token } = await owner(app)
  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  const walking = app.inject({ method: 'GET', url, headers: auth(token) })
  const health = await app.inject({ method: 'GET', url: '/api/v1/hal/storage/capabilities', headers: auth(token) })
  t.equal(health.statusCode, 200, 'another request answered during the walk')
  const res = await walking
  clearInterval(timer)
  t.match(
    (res.json().data as Array<{ name: string }>).find((c) => c.name === 'files'),
    { size_bytes: 2000 * 4, status: 'ok' },
  )
  t.ok(ticks > 2, `timers kept firing during the walk (${ticks})`)
})
