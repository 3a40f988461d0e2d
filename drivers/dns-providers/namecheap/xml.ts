/**
 * Just enough XML reading for Namecheap's API replies: the document is flat,
 * data lives in attributes of known elements, and errors are text nodes of
 * <Error Number="...">. No XML library is installed, and these few patterns
 * cover the documented shapes.
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

function attributes(raw: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of raw.matchAll(/([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    out[m[1] as string] = decodeXml(m[2] ?? m[3] ?? '')
  }
  return out
}

/** Attributes of every element named `tag` (case-insensitive; self-closing or not). */
export function elements(xml: string, tag: string): Array<Record<string, string>> {
  const re = new RegExp(`<${tag}(\\s[^>]*?)?\\/?>`, 'gi')
  return [...xml.matchAll(re)].map((m) => attributes(m[1] ?? ''))
}

/** Text content of the first element named `tag`, or null. */
export function text(xml: string, tag: string): string | null {
  const m = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)<\\/${tag}>`, 'i').exec(xml)
  return m ? decodeXml(m[1] as string).trim() : null
}

export interface ApiStatus {
  ok: boolean
  errors: Array<{ number: string; message: string }>
}

/** Reads <ApiResponse Status="OK|ERROR"> and its <Errors>. */
export function apiStatus(xml: string): ApiStatus | null {
  const root = elements(xml, 'ApiResponse')[0]
  if (!root) return null
  const errors = [...xml.matchAll(/<Error(\s[^>]*)?>([\s\S]*?)<\/Error>/gi)].map((m) => ({
    number: attributes(m[1] ?? '').Number ?? '',
    message: decodeXml(m[2] as string).trim(),
  }))
  return { ok: (root.Status ?? '').toUpperCase() === 'OK', errors }
}
