import type { XMLParser } from 'fast-xml-parser'

/**
 * DAV request bodies as a small namespace-resolved tree, and the writer of
 * multistatus answers. fast-xml-parser never expands entities here
 * (processEntities: false) and a body with a DOCTYPE is refused before parsing:
 * no external entities (XXE), no entity expansion (billion laughs). Only the
 * five predefined entities and character references are decoded, in one linear pass.
 */
export const NS = {
  dav: 'DAV:',
  caldav: 'urn:ietf:params:xml:ns:caldav',
  carddav: 'urn:ietf:params:xml:ns:carddav',
  cs: 'http://calendarserver.org/ns/',
  apple: 'http://apple.com/ns/ical/',
} as const

export interface XmlNode {
  ns: string
  name: string
  attrs: Record<string, string>
  children: XmlNode[]
  text: string
}

export class XmlError extends Error {}

const MAX_DEPTH = 64

/**
 * fast-xml-parser (and its dependencies, ~120 KB of code) is imported by the first body that needs
 * it, not at start (issue 11, idle memory): DAV's routes await `xmlReady()` before dispatching a
 * request with a body, the sync connectors before reading a multistatus answer.
 */
let fastXml: typeof import('fast-xml-parser') | undefined
let loading: Promise<void> | undefined
export function xmlReady(): Promise<void> {
  return (loading ??= import('fast-xml-parser').then((m) => {
    fastXml = m
  }))
}

/** The library, once `xmlReady()` has settled. */
export function loadedXml(): typeof import('fast-xml-parser') {
  if (!fastXml) throw new Error('XML parsed before xmlReady()')
  return fastXml
}

let parser: XMLParser | undefined

const PARSER_OPTIONS = {
  ignoreAttributes: false,
  preserveOrder: true,
  processEntities: false,
  htmlEntities: false,
  attributeNamePrefix: '',
  trimValues: true,
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
}

const ENTITY = /&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos));/g
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decode(text: string): string {
  return text.replace(ENTITY, (_m, hex: string | undefined, dec: string | undefined, named: string | undefined) => {
    if (named) return NAMED[named] ?? ''
    const code = hex ? parseInt(hex, 16) : Number(dec)
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ''
  })
}

/** Parses a DAV XML body (after `xmlReady()`); throws XmlError for anything malformed or carrying a DOCTYPE. */
export function parseXml(body: string): XmlNode {
  const xml = loadedXml()
  parser ??= new xml.XMLParser(PARSER_OPTIONS)
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) throw new XmlError('DOCTYPE and entity declarations are not accepted')
  // The parser forgives unclosed elements; the validator does not.
  const valid = xml.XMLValidator.validate(body)
  if (valid !== true) throw new XmlError(`malformed XML: ${valid.err.msg}`)
  let raw: unknown[]
  try {
    raw = parser.parse(body) as unknown[]
  } catch (err) {
    throw new XmlError(`malformed XML: ${(err as Error).message}`)
  }
  const roots = raw.map((n) => convert(n as RawNode, new Map(), 0)).filter((n): n is XmlNode => n !== null)
  if (roots.length !== 1) throw new XmlError('expected one root element')
  return roots[0] as XmlNode
}

type RawNode = Record<string, unknown> & { ':@'?: Record<string, string> }

function convert(raw: RawNode, scope: Map<string, string>, depth: number): XmlNode | null {
  if (depth > MAX_DEPTH) throw new XmlError('XML nested too deep')
  const tag = Object.keys(raw).find((k) => k !== ':@')
  if (!tag || tag === '#text' || tag.startsWith('?') || tag.startsWith('!')) return null
  const attrs = raw[':@'] ?? {}
  let names = scope
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      if (names === scope) names = new Map(scope)
      // A prefix cannot be bound to the empty name (Namespaces in XML 1.0, NSC: no prefix undeclaring).
      if (k !== 'xmlns' && !v) throw new XmlError(`namespace prefix ${k.slice(6)} bound to an empty name`)
      names.set(k === 'xmlns' ? '' : k.slice(6), v)
    }
  }
  const colon = tag.indexOf(':')
  const prefix = colon > 0 ? tag.slice(0, colon) : ''
  if (prefix && !names.has(prefix)) throw new XmlError(`undeclared namespace prefix ${prefix}`)
  const node: XmlNode = { ns: names.get(prefix) ?? '', name: colon > 0 ? tag.slice(colon + 1) : tag, attrs: {}, children: [], text: '' }
  for (const [k, v] of Object.entries(attrs)) if (!k.startsWith('xmlns')) node.attrs[k] = decode(String(v))
  for (const child of (raw[tag] as RawNode[] | undefined) ?? []) {
    if ('#text' in child) node.text += decode(String(child['#text']))
    else {
      const c = convert(child, names, depth + 1)
      if (c) node.children.push(c)
    }
  }
  return node
}

export const is = (n: XmlNode | undefined, ns: string, name: string): n is XmlNode => !!n && n.ns === ns && n.name === name
export const child = (n: XmlNode | undefined, ns: string, name: string) => n?.children.find((c) => is(c, ns, name))
export const childrenOf = (n: XmlNode | undefined, ns: string, name: string) => n?.children.filter((c) => is(c, ns, name)) ?? []

export function escapeXml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : '&quot;'))
}

/** Prefixes of the namespaces answers use; any other namespace is declared where it is written. */
const PREFIX: Record<string, string> = { [NS.dav]: 'd', [NS.caldav]: 'c', [NS.carddav]: 'card', [NS.cs]: 'cs', [NS.apple]: 'ical' }
const DECLARATIONS = Object.entries(PREFIX)
  .map(([ns, p]) => `xmlns:${p}="${ns}"`)
  .join(' ')

/** An element name (with a local declaration for unknown namespaces) and its closing tag. */
export function tag(ns: string, name: string): [open: string, close: string] {
  const p = PREFIX[ns]
  if (p) return [`${p}:${name}`, `${p}:${name}`]
  if (!ns) return [name, name]
  return [`x:${name} xmlns:x="${escapeXml(ns)}"`, `x:${name}`]
}

/** `<ns:name>inner</ns:name>`, or the empty element when inner is ''. */
export function el(ns: string, name: string, inner = ''): string {
  const [open, close] = tag(ns, name)
  return inner ? `<${open}>${inner}</${close}>` : `<${open}/>`
}

export const href = (path: string) => el(NS.dav, 'href', escapeXml(path))

/** A property's value: raw XML already built, or text to escape. */
export type PropValue = { xml: string } | string

export interface PropResult {
  ns: string
  name: string
  value: PropValue | null
}

const STATUS: Record<number, string> = {
  200: 'HTTP/1.1 200 OK',
  403: 'HTTP/1.1 403 Forbidden',
  404: 'HTTP/1.1 404 Not Found',
  424: 'HTTP/1.1 424 Failed Dependency',
  507: 'HTTP/1.1 507 Insufficient Storage',
}

/** One <response>: found properties in a 200 propstat, missing ones in a 404 propstat. */
export function response(path: string, found: PropResult[], missing: PropResult[] = [], missingStatus = 404): string {
  return propstatResponse(path, [
    [200, found],
    [missingStatus, missing],
  ])
}

/** One <response> with a propstat per status that has properties. */
export function propstatResponse(path: string, groups: Array<[status: number, props: PropResult[]]>): string {
  return el(NS.dav, 'response', href(path) + propstats(groups))
}

/** A propstat per status that has properties (an empty 200 one when none has). */
export function propstats(groups: Array<[status: number, props: PropResult[]]>): string {
  const stat = (status: number, props: PropResult[]) =>
    el(
      NS.dav,
      'propstat',
      el(
        NS.dav,
        'prop',
        props.map((p) => el(p.ns, p.name, p.value === null ? '' : typeof p.value === 'string' ? escapeXml(p.value) : p.value.xml)).join(''),
      ) + el(NS.dav, 'status', STATUS[status] ?? `HTTP/1.1 ${status}`),
    )
  const used = groups.filter(([, props]) => props.length)
  return (used.length ? used : [[200, []] as [number, PropResult[]]]).map(([status, props]) => stat(status, props)).join('')
}

/** A <response> with a bare status (sync-collection deletions, multiget misses). */
export function statusResponse(path: string, status: number): string {
  return el(NS.dav, 'response', href(path) + el(NS.dav, 'status', STATUS[status] ?? `HTTP/1.1 ${status}`))
}

export function multistatus(responses: string[], extra = ''): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n<d:multistatus ${DECLARATIONS}>${responses.join('')}${extra}</d:multistatus>`
}

/** An error body with a precondition element (RFC 4918 16), e.g. DAV:valid-sync-token. */
export function errorBody(ns: string, name: string): string {
  return documentOf(NS.dav, 'error', el(ns, name))
}

/** An XML answer whose root is ns:name (a known namespace), e.g. CALDAV:mkcalendar-response. */
export function documentOf(ns: string, name: string, inner: string): string {
  const [open, close] = tag(ns, name)
  return `<?xml version="1.0" encoding="utf-8"?>\n<${open} ${DECLARATIONS}>${inner}</${close}>`
}
