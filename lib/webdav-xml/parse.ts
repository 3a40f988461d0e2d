import { pacedSteps, runSteps, type Steps } from '../paced-stream.js'

/**
 * WebDAV XML (RFC 4918) read into a small namespace-resolved tree: request bodies a server reads and
 * multistatus answers a client reads, through the same safe reader. It is our own: one pass over the
 * text, each character looked at a bounded number of times, that can pause between its steps (a server
 * reading a large body gives the event loop back), and it knows only what WebDAV bodies use: elements,
 * attributes, text, CDATA sections, comments and processing instructions. A document with a DOCTYPE is refused: no external entities
 * (XXE), no entity expansion (billion laughs). The five predefined entities and character references
 * are decoded in one linear pass (decodeXmlText), the same way for both. Nesting is bounded, and so is
 * the size of what is read.
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

// XML 1.0's Name production (the Basic Multilingual Plane's part of it).
const NAME_START =
  ':A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD'
const NAME_SOURCE = `[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*`
// Sticky: each matches where the reader stands, never searching ahead.
// eslint-disable-next-line no-misleading-character-class -- XML names may carry combining marks after their first character
const NAME = new RegExp(NAME_SOURCE, 'y')
// eslint-disable-next-line no-misleading-character-class -- XML names may carry combining marks after their first character
const ATTRIBUTE = new RegExp(`[ \\t\\r\\n]+(${NAME_SOURCE})[ \\t\\r\\n]*=[ \\t\\r\\n]*(?:"([^<"]*)"|'([^<']*)')`, 'y')
const TAG_END = /[ \t\r\n]*\/?>/y
const CLOSE_END = /[ \t\r\n]*>/y
const XML_DECLARATION = /<\?xml[ \t\r\n?]/y
/** An ampersand that starts no reference (`&name;`, `&#10;`, `&#xA;`): malformed. */
// eslint-disable-next-line no-misleading-character-class -- XML names may carry combining marks after their first character
const STRAY_AMPERSAND = new RegExp(`&(?!(?:${NAME_SOURCE}|#[0-9]+|#x[0-9a-fA-F]+);)`)
const SPACE_ONLY = /^[ \t\r\n]*$/

/** Parses a document in this turn; throws XmlError for anything malformed, too large, too deep or carrying a DOCTYPE. */
export function parseXml(body: string, maxBytes = MAX_XML_BYTES): XmlNode {
  return runSteps(xmlSteps(body, maxBytes))
}

/** The same, giving the event loop back every 10 ms of reading (a request body of a megabyte: a few slices). */
export function parseXmlPaced(body: string, maxBytes = MAX_XML_BYTES): Promise<XmlNode> {
  return pacedSteps(xmlSteps(body, maxBytes))
}

/** Markup read between two places the reader may pause. */
const STEP = 256

function* xmlSteps(body: string, maxBytes: number): Steps<XmlNode> {
  if (body.length > maxBytes) throw new XmlError(`XML larger than ${maxBytes} bytes`)
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) throw new XmlError('DOCTYPE and entity declarations are not accepted')
  return yield* read(body)
}

interface Open {
  node: XmlNode
  qname: string
  names: Map<string, string>
  /** Text read since the last child element or CDATA section (a comment does not end it). */
  pending: string
}

const malformed = (why: string): never => {
  throw new XmlError(`malformed XML: ${why}`)
}

function* read(xml: string): Steps<XmlNode> {
  const stack: Open[] = []
  let root: XmlNode | null = null
  const start = xml.charCodeAt(0) === 0xfeff ? 1 : 0
  let pos = start
  let marks = 0
  const closing = (what: string, from: number, kind: string) => {
    const at = xml.indexOf(what, from)
    return at === -1 ? malformed(`an unclosed ${kind}`) : at
  }
  while (pos < xml.length) {
    if (++marks % STEP === 0) yield
    const lt = xml.indexOf('<', pos)
    const end = lt === -1 ? xml.length : lt
    if (end > pos) {
      const open = stack.at(-1)
      if (open) open.pending += xml.slice(pos, end)
      else if (!SPACE_ONLY.test(xml.slice(pos, end))) malformed('text outside the root element')
    }
    if (lt === -1) break
    if (xml.startsWith('<!--', lt)) {
      pos = closing('-->', lt + 4, 'comment') + 3
      continue
    }
    const open = stack.at(-1)
    if (open?.pending) flush(open)
    if (xml.startsWith('<![CDATA[', lt)) {
      const close = closing(']]>', lt + 9, 'CDATA section')
      ;(open ?? malformed('CDATA outside the root element')).node.text += xml.slice(lt + 9, close)
      pos = close + 3
    } else if (xml.startsWith('<?', lt)) {
      XML_DECLARATION.lastIndex = lt
      if (lt !== start && XML_DECLARATION.test(xml)) malformed('an XML declaration past the start of the document')
      pos = closing('?>', lt + 2, 'processing instruction') + 2
    } else if (xml.startsWith('</', lt)) pos = closeTag(lt)
    else if (xml.startsWith('<!', lt)) malformed('a markup declaration')
    else pos = openTag(lt)
  }
  if (stack.length) malformed(`${stack.at(-1)?.qname} is not closed`)
  if (!root) throw new XmlError('expected one root element')
  return root

  function openTag(lt: number): number {
    NAME.lastIndex = lt + 1
    if (!NAME.test(xml)) malformed('a tag without a valid name')
    const qname = xml.slice(lt + 1, NAME.lastIndex)
    // Name, value, name, value...: most elements have none, a few have one or two.
    const attrs: string[] = []
    let at = NAME.lastIndex
    for (let m: RegExpExecArray | null; ; at = ATTRIBUTE.lastIndex) {
      ATTRIBUTE.lastIndex = at
      if (!(m = ATTRIBUTE.exec(xml))) break
      const name = m[1] as string
      for (let i = 0; i < attrs.length; i += 2) if (attrs[i] === name) malformed(`attribute ${name} repeated`)
      // Trimmed as text is: white space around a value means nothing in any attribute WebDAV uses.
      attrs.push(name, (m[2] ?? m[3] ?? '').trim())
    }
    TAG_END.lastIndex = at
    if (!TAG_END.test(xml)) malformed(`a malformed tag ${qname}`)
    const parent = stack.at(-1)
    if (stack.length > MAX_DEPTH) throw new XmlError('XML nested too deep')
    const open = element(qname, attrs, parent?.names ?? NO_NAMES)
    if (parent) parent.node.children.push(open.node)
    else if (root) throw new XmlError('expected one root element')
    else root = open.node
    // TAG_END ends with '>' or '/>'.
    if (xml.charCodeAt(TAG_END.lastIndex - 2) !== 0x2f) stack.push(open)
    return TAG_END.lastIndex
  }

  function closeTag(lt: number): number {
    NAME.lastIndex = lt + 2
    if (!NAME.test(xml)) malformed('a closing tag without a valid name')
    const qname = xml.slice(lt + 2, NAME.lastIndex)
    CLOSE_END.lastIndex = NAME.lastIndex
    if (!CLOSE_END.test(xml)) malformed(`a malformed closing tag ${qname}`)
    const open = stack.pop()
    if (open?.qname !== qname) malformed(`</${qname}> closes ${open ? `<${open.qname}>` : 'nothing'}`)
    return CLOSE_END.lastIndex
  }
}

/** Text between markup, added to its element: trimmed, its references checked and decoded. */
function flush(open: Open) {
  const trimmed = open.pending.trim()
  open.pending = ''
  if (!trimmed) return
  if (trimmed.includes('&') && STRAY_AMPERSAND.test(trimmed)) malformed('an & that starts no reference')
  open.node.text += decodeXmlText(trimmed)
}

const NO_NAMES = new Map<string, string>()

/** An element with its namespace resolved in the scope its own xmlns attributes make. */
function element(qname: string, attrs: string[], scope: Map<string, string>): Open {
  let names = scope
  const node: XmlNode = { ns: '', name: qname, attrs: {}, children: [], text: '' }
  for (let i = 0; i < attrs.length; i += 2) {
    const k = attrs[i] as string
    const v = attrs[i + 1] as string
    if (v.includes('&') && STRAY_AMPERSAND.test(v)) malformed(`an & that starts no reference in attribute ${k}`)
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      if (names === scope) names = new Map(scope)
      // A prefix cannot be bound to the empty name (Namespaces in XML 1.0, NSC: no prefix undeclaring).
      if (k !== 'xmlns' && !v) throw new XmlError(`namespace prefix ${k.slice(6)} bound to an empty name`)
      names.set(k === 'xmlns' ? '' : k.slice(6), v)
    } else if (!k.startsWith('xmlns')) node.attrs[k] = decodeXmlText(v)
  }
  const colon = qname.indexOf(':')
  const prefix = colon > 0 ? qname.slice(0, colon) : ''
  if (prefix && !names.has(prefix)) throw new XmlError(`undeclared namespace prefix ${prefix}`)
  node.ns = names.get(prefix) ?? ''
  if (colon > 0) node.name = qname.slice(colon + 1)
  return { node, qname, names, pending: '' }
}

export const is = (n: XmlNode | undefined, ns: string, name: string): n is XmlNode => !!n && n.ns === ns && n.name === name
export const child = (n: XmlNode | undefined, ns: string, name: string) => n?.children.find((c) => is(c, ns, name))
export const childrenOf = (n: XmlNode | undefined, ns: string, name: string) => n?.children.filter((c) => is(c, ns, name)) ?? []
