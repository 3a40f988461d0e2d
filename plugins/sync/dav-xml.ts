import type { XMLParser } from 'fast-xml-parser'
import { loadedXml } from '../dav/xml.js'

/**
 * WebDAV multistatus answers (RFC 4918, 6578) read into plain objects.
 * The parser never expands entities (no DOCTYPE entity can grow a small
 * answer into a huge one): only the five predefined XML escapes and character
 * references are decoded, in one pass, in the strings we read (hrefs, etags,
 * tokens, address and calendar data).
 */
// fast-xml-parser is imported by the first multistatus answer, not at start (dav/xml.ts `xmlReady`).
let parser: XMLParser | undefined

const PARSER_OPTIONS = {
  ignoreAttributes: true,
  removeNSPrefix: true,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  trimValues: true,
  isArray: (name: string) => name === 'response' || name === 'propstat' || name === 'href' || name === 'supported-report',
}

const ESCAPES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" }
/** The predefined escapes and character references (&#13; &#x0D;), one pass; anything else is left as written. */
const decode = (s: string) =>
  s.replace(/&(?:amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (m) => {
    if (m[1] !== '#') return ESCAPES[m] ?? m
    const code = m[2] === 'x' ? parseInt(m.slice(3, -1), 16) : parseInt(m.slice(2, -1), 10)
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m
  })

export type Props = Record<string, unknown>

export interface DavResponse {
  href: string
  /** Status of the response itself (sync-collection reports a removed member as 404 here). */
  status: number | null
  /** Properties found (status 2xx propstat). */
  props: Props
}

export interface Multistatus {
  responses: DavResponse[]
  syncToken: string | null
}

const statusCode = (line: unknown) => {
  const m = typeof line === 'string' ? /^HTTP\/\d(?:\.\d)?\s+(\d{3})/.exec(line) : null
  return m ? Number(m[1]) : null
}

/** After `xmlReady()` (dav/xml.ts). */
export function parseMultistatus(xml: string): Multistatus {
  parser ??= new (loadedXml().XMLParser)(PARSER_OPTIONS)
  const doc = parser.parse(xml) as { multistatus?: { response?: unknown[]; 'sync-token'?: unknown } }
  const ms = doc.multistatus
  if (!ms || typeof ms !== 'object') throw new Error('the server did not answer a WebDAV multistatus')
  const responses: DavResponse[] = []
  for (const raw of ms.response ?? []) {
    const r = raw as { href?: unknown[]; status?: unknown; propstat?: Array<{ prop?: Props; status?: unknown }> }
    const href = text(r.href?.[0])
    if (!href) continue
    const props: Props = {}
    for (const ps of r.propstat ?? []) {
      const code = statusCode(ps.status)
      if (code !== null && code >= 200 && code < 300 && ps.prop && typeof ps.prop === 'object') Object.assign(props, ps.prop)
    }
    responses.push({ href, status: statusCode(r.status), props })
  }
  return { responses, syncToken: text(ms['sync-token']) || null }
}

/** The text of an element (a string), decoded; '' for anything else. */
export function text(value: unknown): string {
  return typeof value === 'string' ? decode(value) : ''
}

/** The first href inside a property such as current-user-principal or addressbook-home-set. */
export function hrefIn(prop: unknown): string | null {
  if (!prop || typeof prop !== 'object') return null
  const hrefs = (prop as { href?: unknown[] }).href
  return text(hrefs?.[0]) || null
}

/** Names of the child elements of a property (resourcetype members, reports). */
export function has(prop: unknown, name: string): boolean {
  return Boolean(prop && typeof prop === 'object' && name in prop)
}

/** Whether supported-report-set lists a report. */
export function supportsReport(set: unknown, report: string): boolean {
  const reports = (set as { 'supported-report'?: Array<{ report?: unknown }> } | undefined)?.['supported-report'] ?? []
  return reports.some((r) => has(r.report, report))
}
