import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/**
 * The household page at `/`: one HTML file, one ES module, one stylesheet and two libraries it loads only
 * when needed (the QR code drawer, the WebAuthn helper), all from this folder's assets/ (the libraries are
 * copied there from node_modules at build time: scripts/page-assets.mjs). Nothing is fetched from
 * elsewhere, and the policy below forbids it.
 */
const ASSETS = new URL('./assets/', import.meta.url)

/** What the browser may run: this origin's files only, no inline script or style, no framing, no DOM sinks. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
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
  '/assets/household.css': { file: 'household.css', type: 'text/css; charset=utf-8' },
  '/assets/icon.svg': { file: 'icon.svg', type: 'image/svg+xml' },
  '/assets/vendor/qrcode.mjs': { file: 'vendor/qrcode.mjs', type: 'text/javascript; charset=utf-8' },
  '/assets/vendor/webauthn.js': { file: 'vendor/webauthn.js', type: 'text/javascript; charset=utf-8' },
}

interface Loaded {
  body: Buffer
  etag: string
}

export function registerHouseholdPage(app: FastifyInstance): void {
  // Read on first request and kept (about 80 KB in all): a start that never serves the page pays nothing.
  const loaded = new Map<string, Promise<Loaded>>()
  const load = (file: string): Promise<Loaded> => {
    let entry = loaded.get(file)
    if (!entry) {
      entry = readFile(new URL(file, ASSETS)).then((body) => ({
        body,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      }))
      entry.catch(() => loaded.delete(file))
      loaded.set(file, entry)
    }
    return entry
  }

  const serve = (url: string) => {
    const { file, type } = FILES[url]!
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const { body, etag } = await load(file)
      reply
        .header('content-type', type)
        .header('etag', etag)
        // Revalidated each time (a 304 on loopback costs less than a stale page after an upgrade).
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header('content-security-policy', CONTENT_SECURITY_POLICY)
        .header('x-frame-options', 'DENY')
        .header('cross-origin-opener-policy', 'same-origin')
        .header('cross-origin-resource-policy', 'same-origin')
      if (request.headers['if-none-match'] === etag) return reply.code(304).send()
      return reply.send(body)
    }
  }

  // On the root app, outside the API's route pipeline: public static files, not in the OpenAPI document.
  const hidden = { schema: { hide: true } }
  for (const url of Object.keys(FILES)) app.get(url, hidden, serve(url))
}
