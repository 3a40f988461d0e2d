import { OutboundError, type TargetPolicy } from '../../lib/outbound-address.js'
import { outbound } from '../../lib/outbound-request.js'
import {
  escapeXml,
  has,
  hrefIn,
  type Multistatus,
  parseMultistatus,
  supportsReport,
  text,
  type XmlNode,
} from '../../lib/webdav-xml/index.js'

/**
 * A pull-only CardDAV / CalDAV client (RFC 6352, 4791) over the outbound guard:
 * discovery (the URL itself when it is a collection, else current-user-principal
 * from the URL or /.well-known/, then the home set and its collections), the
 * sync-collection report (RFC 6578) where a collection offers it, and a Depth 1
 * PROPFIND of getetag otherwise.
 */
export type DavKind = 'carddav' | 'caldav'

export interface Collection {
  href: string
  syncCollection: boolean
  /** DAV:displayname, e.g. "Work": a CalDAV collection's name becomes its events' calendar_name. */
  name: string | null
}

export interface Member {
  href: string
  etag: string | null
}

export class DavError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message)
  }
}
/** The stored sync-token is no longer valid (RFC 6578 3.2, valid-sync-token precondition). */
export class InvalidSyncToken extends DavError {}

/** Members asked for in one multiget REPORT. */
const MULTIGET_BATCH = 100

const NS = 'xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav" xmlns:cal="urn:ietf:params:xml:ns:caldav"'
const COLLECTION_TYPE: Record<DavKind, string> = { carddav: 'addressbook', caldav: 'calendar' }
const HOME_SET: Record<DavKind, string> = { carddav: 'card:addressbook-home-set', caldav: 'cal:calendar-home-set' }

export interface DavClientOptions {
  kind: DavKind
  username: string | null
  password: string | null
  policy: TargetPolicy
}

export function davClient({ kind, username, password, policy }: DavClientOptions) {
  const authorization = username !== null ? `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}` : undefined
  const headers = (extra: Record<string, string>) => ({ ...(authorization ? { authorization } : {}), ...extra })

  async function send(method: string, url: string, extra: Record<string, string>, body?: string) {
    try {
      return await outbound(url, { method, headers: headers(extra), body, policy })
    } catch (err) {
      // Transport and policy failures carry no credentials: their message is safe to log.
      throw new DavError(err instanceof OutboundError ? err.message : `${new URL(url).host}: ${(err as Error).message}`)
    }
  }

  async function multistatus(method: string, url: string, depth: '0' | '1', body: string): Promise<Multistatus & { url: string }> {
    const res = await send(method, url, { depth, 'content-type': 'application/xml; charset=utf-8' }, body)
    const where = `${method} ${new URL(url).pathname}`
    if (res.status === 401) throw new DavError(`${where}: 401 (check the username and password)`, 401)
    if (res.status !== 207) throw new DavError(`${where}: the server answered ${res.status}`, res.status)
    return { ...parseMultistatus(res.body.toString('utf8')), url: res.url }
  }

  const propfind = (url: string, depth: '0' | '1', props: string) =>
    multistatus('PROPFIND', url, depth, `<?xml version="1.0" encoding="utf-8"?><d:propfind ${NS}><d:prop>${props}</d:prop></d:propfind>`)

  const absolute = (href: string, base: string) => new URL(href, base).href
  /**
   * A member lives with its collection: an href naming another origin would carry the
   * credentials there (discovery may move to another host, as iCloud's does; members may not).
   */
  const sameOrigin = (href: string, collection: string) => new URL(href).origin === new URL(collection).origin

  /** The collections of this kind the URL leads to. */
  async function discover(start: string): Promise<Collection[]> {
    const type = COLLECTION_TYPE[kind]
    const props = `<d:resourcetype/><d:displayname/><d:current-user-principal/><${HOME_SET[kind]}/><d:supported-report-set/>`
    // A URL that is no DAV resource at all (a web page, 404, 405): discovery goes on at /.well-known/.
    const probe = await propfind(start, '0', props).catch((err: unknown) => {
      if (err instanceof DavError && err.status !== null && err.status !== 401) return { responses: [], syncToken: null, url: start }
      throw err
    })
    const self = probe.responses[0]
    if (self && has(self.props.resourcetype, type)) {
      return [collectionOf(probe.url, self.props)]
    }
    let home = hrefIn(self?.props[HOME_SET[kind].split(':')[1]])
    let base = probe.url
    if (!home) {
      let principal = hrefIn(self?.props['current-user-principal'])
      if (!principal) {
        const wellKnown = await propfind(new URL(`/.well-known/${kind}`, start).href, '0', '<d:current-user-principal/>')
        principal = hrefIn(wellKnown.responses[0]?.props['current-user-principal'])
        base = wellKnown.url
      }
      if (!principal) throw new DavError('no current-user-principal: give the URL of the address book or calendar itself')
      const p = await propfind(absolute(principal, base), '0', `<${HOME_SET[kind]}/>`)
      home = hrefIn(p.responses[0]?.props[HOME_SET[kind].split(':')[1]])
      base = p.url
      if (!home) throw new DavError(`the principal has no ${HOME_SET[kind].split(':')[1]}`)
    }
    const homeUrl = absolute(home, base)
    const listing = await propfind(homeUrl, '1', '<d:resourcetype/><d:displayname/><d:supported-report-set/>')
    return listing.responses.filter((r) => has(r.props.resourcetype, type)).map((r) => collectionOf(absolute(r.href, listing.url), r.props))
  }

  /** Members changed since `token` ('' = all of them) and the ones removed, with the new token. */
  async function syncCollection(collection: string, token: string) {
    const body = `<?xml version="1.0" encoding="utf-8"?><d:sync-collection ${NS}><d:sync-token>${escapeXml(token)}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`
    let ms: Multistatus & { url: string }
    try {
      ms = await multistatus('REPORT', collection, '0', body)
    } catch (err) {
      if (token && err instanceof DavError && [400, 403, 409].includes(err.status ?? 0)) throw new InvalidSyncToken(err.message)
      throw err
    }
    const changed: Member[] = []
    const removed: string[] = []
    for (const r of ms.responses) {
      const href = absolute(r.href, ms.url)
      if (href === collection || !sameOrigin(href, collection)) continue
      if (r.status === 404) removed.push(href)
      else changed.push({ href, etag: text(r.props.getetag) || null })
    }
    return { changed, removed, token: ms.syncToken }
  }

  /** Every member with its ETag (Depth 1 PROPFIND). */
  async function members(collection: string): Promise<Member[]> {
    const ms = await propfind(collection, '1', '<d:getetag/><d:resourcetype/>')
    return ms.responses
      .map((r) => ({
        href: absolute(r.href, ms.url),
        etag: text(r.props.getetag) || null,
        folder: has(r.props.resourcetype, 'collection'),
      }))
      .filter((m) => m.href !== collection && !m.folder && sameOrigin(m.href, collection))
      .map(({ href, etag }) => ({ href, etag }))
  }

  /**
   * The bodies of many members in one addressbook-multiget / calendar-multiget REPORT
   * (RFC 6352 8.7, RFC 4791 7.9), in batches; a member the answer leaves out is fetched alone.
   */
  async function fetchAll(collection: string, hrefs: string[]): Promise<Map<string, { body: string; etag: string | null } | null>> {
    const out = new Map<string, { body: string; etag: string | null } | null>()
    const [report, data] =
      kind === 'carddav' ? ['card:addressbook-multiget', 'card:address-data'] : ['cal:calendar-multiget', 'cal:calendar-data']
    for (let i = 0; i < hrefs.length; i += MULTIGET_BATCH) {
      const batch = hrefs.slice(i, i + MULTIGET_BATCH)
      const body = `<?xml version="1.0" encoding="utf-8"?><${report} ${NS}><d:prop><d:getetag/><${data}/></d:prop>${batch
        .map((h) => `<d:href>${escapeXml(new URL(h).pathname)}</d:href>`)
        .join('')}</${report}>`
      try {
        const ms = await multistatus('REPORT', collection, '1', body)
        for (const r of ms.responses) {
          const href = absolute(r.href, ms.url)
          const text_ = text(r.props[data.split(':')[1]])
          if (r.status === 404) out.set(href, null)
          else if (text_) out.set(href, { body: text_, etag: text(r.props.getetag) || null })
        }
      } catch (err) {
        // A server without the report: each member alone below.
        if (!(err instanceof DavError)) throw err
      }
      for (const href of batch) if (!out.has(href)) out.set(href, await get(href))
    }
    return out
  }

  async function get(href: string): Promise<{ body: string; etag: string | null } | null> {
    const res = await send('GET', href, {})
    if (res.status === 404 || res.status === 410) return null
    if (res.status !== 200) throw new DavError(`GET ${new URL(href).pathname}: the server answered ${res.status}`)
    const etag = res.headers.etag
    return { body: res.body.toString('utf8'), etag: typeof etag === 'string' ? etag : null }
  }

  return { discover, syncCollection, members, get, fetchAll }
}

function collectionOf(href: string, props: Record<string, XmlNode>): Collection {
  return {
    href,
    syncCollection: supportsReport(props['supported-report-set'], 'sync-collection'),
    name: text(props.displayname).trim() || null,
  }
}
