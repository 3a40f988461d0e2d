/**
 * Just enough XML reading for Namecheap's API replies: the document is flat,
 * data lives in attributes of known elements, and errors are text nodes of
 * <Error Number="...">. No XML library is installed: a scan from tag to tag
 * (linear in the reply, whatever a server sends) covers the documented shapes.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, ent: string) => {
    if (ent[0] === '#') {
      const code = ent[1] === 'x' || ent[1] === 'X' ? Number.parseInt(ent.slice(2), 16) : Number(ent.slice(1))
      return String.fromCodePoint(code)
    }
    return ENTITIES[ent.toLowerCase()] ?? ''
  })
}

export function encodeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** name="value" / name='value' pairs of a tag's attribute text, in one left-to-right scan. */
function attributes(raw: string): Record<string, string> {
  const out: Record<string, string> = {}
  let i = 0
  while (i < raw.length) {
    while (i < raw.length && !/[A-Za-z_]/.test(raw[i] as string)) i++
    const start = i
    while (i < raw.length && /[\w.-]/.test(raw[i] as string)) i++
    const name = raw.slice(start, i)
    while (i < raw.length && /\s/.test(raw[i] as string)) i++
    if (raw[i] !== '=') continue
    i++
    while (i < raw.length && /\s/.test(raw[i] as string)) i++
    const quote = raw[i]
    if (quote !== '"' && quote !== "'") continue
    const end = raw.indexOf(quote, i + 1)
    if (end < 0) break
    if (name) out[name] = decodeXml(raw.slice(i + 1, end))
    i = end + 1
  }
  return out
}

interface Tag {
  /** Lower-cased element name; '/name' for a closing tag. */
  name: string
  attributes: string
  /** Offsets of '<' and just past '>'. */
  start: number
  end: number
}

/** Every tag of the document in order, found with indexOf: each character is looked at a bounded number of times. */
function* tags(xml: string): Generator<Tag> {
  for (let at = xml.indexOf('<'); at >= 0; at = xml.indexOf('<', at + 1)) {
    const close = xml.indexOf('>', at + 1)
    if (close < 0) return
    const inner = xml.slice(at + 1, close)
    let n = 0
    while (n < inner.length && !/[\s/>]/.test(inner[n] as string)) n++
    const closing = inner.startsWith('/')
    const name = closing ? `/${inner.slice(1).trim().toLowerCase()}` : inner.slice(0, n).toLowerCase()
    yield { name, attributes: closing ? '' : inner.slice(n), start: at, end: close + 1 }
    at = close
  }
}

/** Attributes of every element named `tag` (case-insensitive; self-closing or not). */
export function elements(xml: string, tag: string): Array<Record<string, string>> {
  const wanted = tag.toLowerCase()
  const out: Array<Record<string, string>> = []
  for (const t of tags(xml)) if (t.name === wanted) out.push(attributes(t.attributes.replace(/\/$/, '')))
  return out
}

/** Each element named `tag` with its attributes and the text up to its closing tag. */
function withText(xml: string, tag: string): Array<{ attributes: Record<string, string>; text: string }> {
  const wanted = tag.toLowerCase()
  const out: Array<{ attributes: Record<string, string>; text: string }> = []
  let open: Tag | null = null
  for (const t of tags(xml)) {
    if (t.name === wanted && !t.attributes.endsWith('/')) open = t
    else if (t.name === `/${wanted}` && open) {
      out.push({ attributes: attributes(open.attributes), text: decodeXml(xml.slice(open.end, t.start)).trim() })
      open = null
    }
  }
  return out
}

/** Text content of the first element named `tag`, or null. */
export function text(xml: string, tag: string): string | null {
  return withText(xml, tag)[0]?.text ?? null
}

export interface ApiStatus {
  ok: boolean
  errors: Array<{ number: string; message: string }>
}

/** Reads <ApiResponse Status="OK|ERROR"> and its <Errors>. */
export function apiStatus(xml: string): ApiStatus | null {
  const root = elements(xml, 'ApiResponse')[0]
  if (!root) return null
  const errors = withText(xml, 'Error').map((e) => ({ number: e.attributes.Number ?? '', message: e.text }))
  return { ok: (root.Status ?? '').toUpperCase() === 'OK', errors }
}
