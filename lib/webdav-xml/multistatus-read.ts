import { child, childrenOf, parseXml, type XmlNode } from './parse.js'
import { NS } from './write.js'

/**
 * A WebDAV multistatus answer (RFC 4918, 6578) as a client reads it: each response's href,
 * its own status, and the properties of its 2xx propstats by local name. Read with the same
 * safe reader as request bodies (parse.ts).
 */
export interface DavResponse {
  href: string
  /** Status of the response itself (sync-collection reports a removed member as 404 here). */
  status: number | null
  /** Properties found (2xx propstats), by local name. */
  props: Record<string, XmlNode>
}

export interface Multistatus {
  responses: DavResponse[]
  syncToken: string | null
}

const statusCode = (line: string | undefined) => {
  const m = line ? /^HTTP\/\d(?:\.\d)?\s+(\d{3})/.exec(line.trim()) : null
  return m ? Number(m[1]) : null
}

export function parseMultistatus(xml: string): Multistatus {
  const root = parseXml(xml)
  if (root.ns !== NS.dav || root.name !== 'multistatus') throw new Error('the server did not answer a WebDAV multistatus')
  const responses: DavResponse[] = []
  for (const r of childrenOf(root, NS.dav, 'response')) {
    const href = text(child(r, NS.dav, 'href'))
    if (!href) continue
    const props: Record<string, XmlNode> = {}
    for (const ps of childrenOf(r, NS.dav, 'propstat')) {
      const code = statusCode(child(ps, NS.dav, 'status')?.text)
      if (code === null || code < 200 || code >= 300) continue
      for (const p of child(ps, NS.dav, 'prop')?.children ?? []) props[p.name] = p
    }
    responses.push({ href, status: statusCode(child(r, NS.dav, 'status')?.text), props })
  }
  return { responses, syncToken: text(child(root, NS.dav, 'sync-token')) || null }
}

/** The text of an element; '' for none. */
export function text(node: XmlNode | undefined): string {
  return node?.text ?? ''
}

/** The first href inside a property such as current-user-principal or addressbook-home-set. */
export function hrefIn(prop: XmlNode | undefined): string | null {
  return text(child(prop, NS.dav, 'href')) || null
}

/** Whether a property has a child element of that local name (resourcetype members). */
export function has(prop: XmlNode | undefined, name: string): boolean {
  return Boolean(prop?.children.some((c) => c.name === name))
}

/** Whether supported-report-set lists a report. */
export function supportsReport(set: XmlNode | undefined, report: string): boolean {
  return childrenOf(set, NS.dav, 'supported-report').some((r) => has(child(r, NS.dav, 'report'), report))
}
