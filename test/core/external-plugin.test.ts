import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { auth, build, owner } from '../helper.js'

/**
 * The plugin template (examples/hearth-plugin-template) as an author uses it:
 * copied to a folder outside the Hearth tree, Hearth installed into its
 * node_modules (the link `npm install <path>` makes), type-checked and built
 * with tsc against `hearth/plugin-api`, then loaded through HEARTH_PLUGINS_DIR.
 */
const exec = promisify(execFile)
const ROOT = new URL('../../../', import.meta.url).pathname
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')

t.test('the plugin template builds outside the tree and loads through HEARTH_PLUGINS_DIR', async (t) => {
  const outside = mkdtempSync(join(tmpdir(), 'hearth-author-'))
  t.teardown(() => rmSync(outside, { recursive: true, force: true }))
  const folder = join(outside, 'plugins', 'bookmarks')
  cpSync(join(ROOT, 'examples/hearth-plugin-template'), folder, { recursive: true })
  mkdirSync(join(folder, 'node_modules'))
  symlinkSync(ROOT, join(folder, 'node_modules', 'hearth'), 'dir')

  const built = await exec(process.execPath, [TSC, '-p', folder], { cwd: folder }).then(
    () => '',
    (err: { stdout: string }) => err.stdout,
  )
  t.equal(built, '', 'the template type-checks against the shipped declarations of hearth/plugin-api')

  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: join(outside, 'plugins') } })
  t.match(
    app.hearth.plugins.find((p) => p.name === 'bookmarks'),
    { status: 'loaded', source: 'third-party' },
  )
  const o = await owner(app)
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/bookmarks',
    headers: auth(o.token),
    payload: { url: 'https://example.org', title: 'Example' },
  })
  t.equal(created.statusCode, 201)
  t.same(created.json(), { data: { id: 1, url: 'https://example.org', title: 'Example' } })
  const twice = await app.inject({
    method: 'POST',
    url: '/api/v1/bookmarks',
    headers: auth(o.token),
    payload: { url: 'https://example.org', title: 'Again' },
  })
  t.equal(twice.statusCode, 409, "the plugin's HttpError is the core's class: its code reaches the envelope")
  t.equal(twice.json().error.code, 'BOOKMARK_EXISTS')
  const list = await app.inject({ method: 'GET', url: '/api/v1/bookmarks', headers: auth(o.token) })
  t.same(list.json().meta, { total: 1, limit: 20, offset: 0 })
  const doc = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
  t.equal(doc.paths['/api/v1/bookmarks'].post.operationId, 'bookmarks.create', 'documented through the same pipeline')
  t.match(doc.paths['/api/v1/bookmarks'].post.responses['409'].description, /BOOKMARK_EXISTS/)
})
