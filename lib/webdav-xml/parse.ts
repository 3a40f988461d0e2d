import type { XMLParser } from 'fast-xml-parser'

/**
 * WebDAV XML (RFC 4918) read into a small namespace-resolved tree: request bodies a server reads and
 * multistatus answers a client reads, through the same safe reader. Entities are never expanded
 * (processEntities: false) and a document with a DOCTYPE is refused before parsing: no external
 * entities (XXE), no entity expansion (billion laughs). The five predefined entities and character
 * references are decoded in one linear pass (decodeXmlText), the same way for both. Nesting is bounded, and so is the size of what is read.
 */
export interface XmlNode {
  ns: string
  name: string
  attrs: Record<string, string>
  children: XmlNode[]
  text: string
}

export class XmlError extends Error {}

/** How deep elements may nest. */
export const MAX_DEPTH = 64
/** The largest document read unless the caller says otherwise. */
export const MAX_XML_BYTES = 32 * 1024 * 1024

/**
 * fast-xml-parser (and its dependencies, ~120 KB of code) is imported by the first document that needs
 * it, not when the process starts: callers await `xmlReady()` once before `parseXml`.
 */
let fastXml: typeof import('fast-xml-parser') | undefined
let loading: Promise<void> | undefined
export function xmlReady(): Promise<void> {
  return (loading ??= import('fast-xml-parser').then((m) => {
    fastXml = m
  }))
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

/**
 * The predefined entities and character references (any code point from 1 to 10FFFF), decoded;
 * anything else is left as written. What a value may hold (control characters, lone surrogates)
 * is for its reader to check: a DAV property refuses them by itself, in its own propstat.
 */
export function decodeXmlText(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(ENTITY, (m: string, hex: string | undefined, dec: string | undefined, named: string | undefined) => {
    if (named) return NAMED[named] ?? m
    const code = hex ? parseInt(hex, 16) : Number(dec)
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m
  })
}

/** Parses a document (after `xmlReady()`); throws XmlError for anything malformed, too large, too deep or carrying a DOCTYPE. */
export function parseXml(body: string, maxBytes = MAX_XML_BYTES): XmlNode {
  if (!fastXml) throw new Error('XML parsed before xmlReady()')
  if (body.length > maxBytes) throw new XmlError(`XML larger than ${maxBytes} bytes`)
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) throw new XmlError('DOCTYPE and entity declarations are not accepted')
  parser ??= new fastXml.XMLParser(PARSER_OPTIONS)
  // The parser forgives unclosed elements; the validator does not.
  const valid = fastXml.XMLValidator.validate(body)
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
  for (const [k, v] of Object.entries(attrs)) if (!k.startsWith('xmlns')) node.attrs[k] = decodeXmlText(String(v))
  for (const child of (raw[tag] as RawNode[] | undefined) ?? []) {
    if ('#text' in child) node.text += decodeXmlText(String(child['#text']))
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
