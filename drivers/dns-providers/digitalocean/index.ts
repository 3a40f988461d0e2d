import {
  type DnsProviderDriver,
  defineProvider,
  ProviderError,
  type ProviderRecord,
  type ProviderSettings,
  type ProviderZone,
  type RecordInput,
} from '../driver.js'
import { type HttpRequest, joinUrl, kindOfStatus, parseJson, send, succeeds } from '../http.js'
import { formatCaa, isRecordType, parseCaa, parseSrv, stripDot } from '../names.js'

/**
 * DigitalOcean API v2 (https://api.digitalocean.com/v2): Bearer token;
 * GET /account checks it; /domains and /domains/{name}/records list with
 * `page`/`per_page` and answer `links.pages.next` while more pages remain;
 * records carry `name` relative to the domain ('@' for the apex), `data`,
 * and the SRV/CAA parts as `priority`, `port`, `weight`, `flags`, `tag`.
 * Errors: { id, message } with the HTTP status (401 'unauthorized').
 * Host names in `data` are written fully qualified with a trailing dot.
 */
const NAME = 'digitalocean'
const PER_PAGE = 200

interface DoRecord {
  id: number
  type: string
  name: string
  data: string
  priority: number | null
  port: number | null
  ttl: number
  weight: number | null
  flags: number | null
  tag: string | null
}

interface DoPage {
  links?: { pages?: { next?: string } }
}

function client(settings: ProviderSettings): DnsProviderDriver {
  const token = settings.credentials.api_token as string

  const call = async <T>(method: HttpRequest['method'], path: string, json?: unknown): Promise<T> => {
    const reply = await send(NAME, {
      method,
      url: joinUrl(settings.baseUrl, path),
      headers: { authorization: `Bearer ${token}` },
      json,
      timeoutMs: settings.timeoutMs,
    })
    const body = parseJson<T & { id?: unknown; message?: string }>(NAME, reply)
    if (reply.status >= 400) {
      const detail = typeof body.message === 'string' ? `${body.message} (${String(body.id)})` : `HTTP ${reply.status}`
      throw new ProviderError(NAME, kindOfStatus(reply.status), `DigitalOcean: ${detail}`, reply.status)
    }
    return body
  }

  /**
   * Follows links.pages.next. Only its page number is used, against our own
   * base URL, so a reply can never send the token to another host.
   */
  const all = async <T>(path: string, key: string): Promise<T[]> => {
    const out: T[] = []
    for (let page = 1; page < 10_000;) {
      const body = await call<DoPage & Record<string, unknown>>('GET', `${path}?page=${page}&per_page=${PER_PAGE}`)
      const items = body[key]
      if (!Array.isArray(items)) throw new ProviderError(NAME, 'bad_response', `DigitalOcean: ${key} missing from the reply`)
      out.push(...(items as T[]))
      const next = body.links?.pages?.next
      if (!next) return out
      const nextPage = Number(new URL(next, 'http://x').searchParams.get('page'))
      if (!(nextPage > page)) return out
      page = nextPage
    }
    return out
  }

  const fqdn = (host: string) => `${stripDot(host)}.`

  const toBody = (r: RecordInput) => {
    const base = { type: r.type, name: r.name, ttl: r.ttl }
    switch (r.type) {
      case 'CNAME':
      case 'NS':
        return { ...base, data: fqdn(r.content) }
      case 'MX':
        return { ...base, data: fqdn(r.content), priority: r.priority ?? 0 }
      case 'SRV': {
        const srv = parseSrv(r.content)
        if (!srv) throw new ProviderError(NAME, 'rejected', 'DigitalOcean: SRV content must be "weight port target"')
        return { ...base, data: fqdn(srv.target), priority: r.priority ?? 0, weight: srv.weight, port: srv.port }
      }
      case 'CAA': {
        const caa = parseCaa(r.content)
        if (!caa) throw new ProviderError(NAME, 'rejected', 'DigitalOcean: CAA content must be "flags tag value"')
        return { ...base, data: caa.value, flags: caa.flags, tag: caa.tag }
      }
      default:
        return { ...base, data: r.content }
    }
  }

  const fromDo = (zone: ProviderZone, r: DoRecord): ProviderRecord | null => {
    if (!isRecordType(r.type)) return null
    const host = (h: string) => (h === '@' ? zone.name : stripDot(h))
    let content = r.data
    if (r.type === 'CNAME' || r.type === 'NS' || r.type === 'MX') content = host(r.data)
    if (r.type === 'SRV') content = `${r.weight ?? 0} ${r.port ?? 0} ${host(r.data)}`
    if (r.type === 'CAA') content = formatCaa({ flags: r.flags ?? 0, tag: r.tag ?? 'issue', value: r.data })
    const priority = r.type === 'MX' || r.type === 'SRV' ? (r.priority ?? 0) : null
    return { id: String(r.id), type: r.type, name: r.name.toLowerCase(), content, ttl: r.ttl, priority, proxied: false }
  }

  const recordsPath = (zone: ProviderZone, id?: string) =>
    `domains/${encodeURIComponent(zone.name)}/records${id === undefined ? '' : `/${encodeURIComponent(id)}`}`

  return {
    testConnection: () => succeeds(() => call('GET', 'account')),
    async listZones() {
      const domains = await all<{ name: string }>('domains', 'domains')
      return domains.map((d) => ({ id: d.name.toLowerCase(), name: d.name.toLowerCase() }))
    },
    async listRecords(zone) {
      const records = await all<DoRecord>(recordsPath(zone), 'domain_records')
      return records.map((r) => fromDo(zone, r)).filter((r): r is ProviderRecord => r !== null)
    },
    async createRecord(zone, record) {
      const body = await call<{ domain_record: DoRecord }>('POST', recordsPath(zone), toBody(record))
      return fromDo(zone, body.domain_record) ?? { ...record, id: String(body.domain_record.id) }
    },
    async updateRecord(zone, id, record) {
      const body = await call<{ domain_record: DoRecord }>('PUT', recordsPath(zone, id), toBody(record))
      return fromDo(zone, body.domain_record) ?? { ...record, id }
    },
    async deleteRecord(zone, id) {
      await call('DELETE', recordsPath(zone, id))
    },
  }
}

export default defineProvider({
  name: NAME,
  credentialKeys: ['api_token'],
  recordTypes: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'NS'],
  create: client,
})
