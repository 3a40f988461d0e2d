/**
 * WebDAV answers (RFC 4918 multistatus, error bodies) written as XML text: elements of the
 * well-known DAV namespaces under fixed prefixes, any other namespace declared where it is used.
 */
export const NS = {
  dav: 'DAV:',
  caldav: 'urn:ietf:params:xml:ns:caldav',
  carddav: 'urn:ietf:params:xml:ns:carddav',
  cs: 'http://calendarserver.org/ns/',
  apple: 'http://apple.com/ns/ical/',
} as const

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

export const statusLine = (status: number) => el(NS.dav, 'status', STATUS[status] ?? `HTTP/1.1 ${status}`)

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
      ) + statusLine(status),
    )
  const used = groups.filter(([, props]) => props.length)
  return (used.length ? used : [[200, []] as [number, PropResult[]]]).map(([status, props]) => stat(status, props)).join('')
}

/** A <response> with a bare status (sync-collection deletions, multiget misses). */
export function statusResponse(path: string, status: number): string {
  return el(NS.dav, 'response', href(path) + statusLine(status))
}

/**
 * The response that ends an answer cut short (RFC 6578 3.6, RFC 5323 2.5): the request's collection,
 * 507, and the number-of-matches-within-limits condition. Clients read it as "ask again for the rest".
 */
export function truncatedResponse(path: string): string {
  return el(NS.dav, 'response', href(path) + statusLine(507) + el(NS.dav, 'error', el(NS.dav, 'number-of-matches-within-limits')))
}

export const MULTISTATUS_OPEN = `<?xml version="1.0" encoding="utf-8"?>\n<d:multistatus ${DECLARATIONS}>`
export const MULTISTATUS_CLOSE = '</d:multistatus>'

/** A whole multistatus held as one string: for answers that are small by construction (PROPPATCH). */
export function multistatus(responses: string[], extra = ''): string {
  return `${MULTISTATUS_OPEN}${responses.join('')}${extra}${MULTISTATUS_CLOSE}`
}

/** An error body with a precondition element (RFC 4918 16), e.g. DAV:valid-sync-token; `inner` goes inside it. */
export function errorBody(ns: string, name: string, inner = ''): string {
  return documentOf(NS.dav, 'error', el(ns, name, inner))
}

/** An XML answer whose root is ns:name (a known namespace), e.g. CALDAV:mkcalendar-response. */
export function documentOf(ns: string, name: string, inner: string): string {
  const [open, close] = tag(ns, name)
  return `<?xml version="1.0" encoding="utf-8"?>\n<${open} ${DECLARATIONS}>${inner}</${close}>`
}
