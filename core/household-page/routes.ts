import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/**
 * The household page at `/`: one HTML file carrying its stylesheet, one ES module and two libraries it
 * loads only when needed (the QR code drawer, the WebAuthn helper), all from this folder's assets/ (the
 * libraries are copied there from node_modules at build time: scripts/page-assets.mjs). Nothing is fetched
 * from elsewhere, and the policy below forbids it.
 */
const ASSETS = new URL('./assets/', import.meta.url)

/**
 * What the browser may run: this origin's files only, no inline script, no inline style but the page's own
 * stylesheet (allowed by its hash), no framing, no DOM sinks.
 */
export const contentSecurityPolicy = (styleHash: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'sha256-${styleHash}'`,
    "img-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    // The page writes text, never HTML: with Trusted Types required and no policy allowed, any innerHTML-like
    // assignment throws instead of parsing markup.
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join('; ')

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/assets/household.js': { file: 'household.js', type: 'text/javascript; charset=utf-8' },
  '/assets/icon.svg': { file: 'icon.svg', type: 'image/svg+xml' },
  '/assets/vendor/qrcode.mjs': { file: 'vendor/qrcode.mjs', type: 'text/javascript; charset=utf-8' },
  '/assets/vendor/webauthn.js': { file: 'vendor/webauthn.js', type: 'text/javascript; charset=utf-8' },
}

interface Loaded {
  body: Buffer
  /** The content's hash: the ETag, and the `?v=` the page names it with. */
  hash: string
}

/** The files the HTML names (script, icon): named with `?v=<hash>` so a browser may keep them for good. */
const NAMED_BY_PAGE = ['/assets/household.js', '/assets/icon.svg']
/**
 * The stylesheet goes into the HTML itself: a stylesheet holds the first paint until it has arrived, so
 * the page paints from its first response alone, as a one-line page does, instead of after a second trip.
 */
const STYLESHEET_LINK = '<link rel="stylesheet" href="/assets/household.css" />'
const FOR_GOOD = 'public, max-age=31536000, immutable'

export function registerHouseholdPage(app: FastifyInstance): void {
  // Read on first request and kept (about 80 KB in all): a start that never serves the page pays nothing.
  const loaded = new Map<string, Promise<Loaded>>()
  const hashOf = (body: Buffer) => createHash('sha256').update(body).digest('base64url').slice(0, 22)
  const read = async (file: string): Promise<Buffer> => {
    const body = await readFile(new URL(file, ASSETS))
    if (file !== 'index.html') return body
    // The HTML names each file with its hash: a new version is a new URL, so none is revalidated on reload.
    let html = body.toString('utf8')
    for (const url of NAMED_BY_PAGE) html = html.replaceAll(`"${url}"`, `"${url}?v=${(await load(FILES[url]!.file)).hash}"`)
    return Buffer.from(html.replace(STYLESHEET_LINK, `<style>${(await stylesheet()).css}</style>`))
  }
  // The policy of every file names the stylesheet's hash (base64 of its SHA-256, as CSP reads it).
  let styles: Promise<{ css: string; policy: string }> | undefined
  const stylesheet = () =>
    (styles ??= readFile(new URL('household.css', ASSETS), 'utf8').then((css) => ({
      css,
      policy: contentSecurityPolicy(createHash('sha256').update(css).digest('base64')),
    })))
  const load = (file: string): Promise<Loaded> => {
    let entry = loaded.get(file)
    if (!entry) {
      entry = read(file).then((body) => ({ body, hash: hashOf(body) }))
      entry.catch(() => loaded.delete(file))
      loaded.set(file, entry)
    }
    return entry
  }

  const serve = (url: string) => {
    const { file, type } = FILES[url]!
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const { body, hash } = await load(file)
      const { policy } = await stylesheet()
      const etag = `"${hash}"`
      const version = (request.query as { v?: unknown }).v
      reply
        .header('content-type', type)
        .header('etag', etag)
        // The page and any file asked for without its current hash are revalidated each time (a 304 on a home
        // network costs less than a stale page after an upgrade).
        .header('cache-control', version === hash ? FOR_GOOD : 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header('content-security-policy', policy)
        .header('x-frame-options', 'DENY')
        .header('cross-origin-resource-policy', 'same-origin')
      if (request.headers['if-none-match'] === etag) return reply.code(304).send()
      return reply.send(body)
    }
  }

  // On the root app, outside the API's route pipeline: public static files, not in the OpenAPI document.
  const hidden = { schema: { hide: true } }
  for (const url of Object.keys(FILES)) app.get(url, hidden, serve(url))
}
