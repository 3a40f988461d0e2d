import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { build } from '../helper.js'

// What the daemon answers at / and /assets/: the household page's files with a strict policy, the
// libraries it loads byte for byte as their packages ship them, nothing that points elsewhere.

// The packages' files themselves (their exports do not name these paths).
const NODE_MODULES = new URL('../../../node_modules/', import.meta.url)
const PAGE_FILES = ['/', '/assets/household.js', '/assets/icon.svg']

t.test('the page and its files, with their policy and validators', async (t) => {
  const app = await build(t)
  const page = await app.inject({ method: 'GET', url: '/' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html; charset=utf-8/)
  const csp = String(page.headers['content-security-policy'])
  for (const directive of [
    "default-src 'self'",
    "script-src 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
  ])
    t.ok(csp.split('; ').includes(directive), `policy: ${directive}`)
  t.notMatch(csp, /unsafe-inline|unsafe-eval|https?:|\*/, 'no inline code, no eval, no other origin')
  t.equal(page.headers['x-frame-options'], 'DENY')
  t.equal(page.headers['x-content-type-options'], 'nosniff')
  t.equal(page.headers['referrer-policy'], 'no-referrer')
  t.notMatch(page.body, /<script(?![^>]*\bsrc=)[^>]*>|\sstyle=|\son[a-z]+=/i, 'no inline script, style attribute or handler')
  // The first paint needs the HTML alone: its stylesheet is in it, allowed by its hash and nothing wider.
  t.notMatch(page.body, /<link[^>]*rel="stylesheet"/, 'no stylesheet to fetch before the first paint')
  const styles = [...page.body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!)
  t.equal(styles.length, 1, 'one style element')
  t.match(styles[0], /\[hidden\]/, "it is the page's stylesheet")
  const hash = createHash('sha256').update(styles[0]!).digest('base64')
  t.ok(csp.split('; ').includes(`style-src 'self' 'sha256-${hash}'`), 'style-src: this origin and that stylesheet by its hash')

  for (const url of PAGE_FILES) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.notMatch(
      res.body,
      /(?:src|href)=["']?(?:https?:)?\/\/|url\(\s*["']?(?:https?:)?\/\/|import\(\s*["'](?:https?:)?\/\//,
      `${url} loads nothing from elsewhere`,
    )
    const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': String(res.headers.etag) } })
    t.equal(again.statusCode, 304, `${url}: a kept copy is not sent again`)
    const head = await app.inject({ method: 'HEAD', url })
    t.equal(head.statusCode, 200)
    t.equal(head.body, '', `${url}: HEAD has no body`)
  }
  t.equal(page.headers['cache-control'], 'no-cache', 'the page itself is revalidated each time')
  // The page names its files with their content's hash: kept for good, and a new version is a new URL.
  const named = [...page.body.matchAll(/"(\/assets\/[\w.]+)\?v=([\w-]+)"/g)].map((m) => [m[1]!, m[2]!] as const)
  t.same(named.map(([url]) => url).sort(), ['/assets/household.js', '/assets/icon.svg', '/assets/icon.svg'])
  for (const [url, version] of named) {
    const kept = await app.inject({ method: 'GET', url: `${url}?v=${version}` })
    t.equal(kept.headers['cache-control'], 'public, max-age=31536000, immutable', `${url} at its hash is kept for good`)
    t.equal(kept.headers.etag, `"${version}"`, "the hash is the content's")
    const stale = await app.inject({ method: 'GET', url: `${url}?v=an-older-one` })
    t.equal(stale.headers['cache-control'], 'no-cache', `${url} at another hash is revalidated`)
  }
  t.match((await app.inject({ method: 'GET', url: '/assets/household.js' })).headers['content-type'], /^text\/javascript/)
})

t.test('the vendored libraries are the packages’ own files', async (t) => {
  const app = await build(t)
  for (const [url, file] of [
    ['/assets/vendor/qrcode.mjs', 'qrcode-generator/dist/qrcode.mjs'],
    ['/assets/vendor/webauthn.js', '@simplewebauthn/browser/dist/bundle/index.umd.min.js'],
  ] as const) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-type'], /^text\/javascript/)
    t.ok(res.rawPayload.equals(readFileSync(new URL(file, NODE_MODULES))), `${url} is ${file}, byte for byte`)
  }
})

t.test('the rest of the daemon is where it was', async (t) => {
  const app = await build(t)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/docs' })).statusCode, 200, 'the API docs stay')
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/auth/status' })).statusCode, 200)
  const missing = await app.inject({ method: 'GET', url: '/assets/nothing.js' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error.code, 'NOT_FOUND', 'an unknown asset is the usual 404 envelope')
  const post = await app.inject({ method: 'POST', url: '/' })
  t.equal(post.statusCode, 404, 'the page is only read')
  const openapi = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
  t.notOk(openapi.paths['/'], 'the page is not in the API document')
})
