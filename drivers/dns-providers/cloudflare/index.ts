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
import { absoluteName, formatCaa, isRecordType, parseCaa, parseSrv, relativeName, stripDot } from '../names.js'

/**
 * Cloudflare API v4 (https://api.cloudflare.com/client/v4): Bearer API token,
 * every reply in the envelope { success, errors: [{code, message}], messages,
 * result, result_info: { page, per_page, count, total_count, total_pages } }.
 * Token check: GET /user/tokens/verify. Records: /zones/:zone_id/dns_records.
 * SRV and CAA are written through the structured `data` object.
 */
const NAME = 'cloudflare'
const PER_PAGE = 100

interface Envelope<T> {
  success: boolean
  errors?: Array<{ code: number; message: string }>
  result: T
  result_info?: { page: number; per_page: number; total_pages: number; total_count: number }
}

interface CfRecord {
  id: string
  type: string
  name: string
  content: string
  ttl: number
  proxied?: boolean
  priority?: number
  data?: Record<string, unknown>
}

function client(settings: ProviderSettings): DnsProviderDriver {
  const token = settings.credentials.api_token as string

  const call = async <T>(method: HttpRequest['method'], path: string, json?: unknown): Promise<Envelope<T>> => {
    const reply = await send(NAME, {
      method,
      url: joinUrl(settings.baseUrl, path),
      headers: { authorization: `Bearer ${token}` },
      json,
      timeoutMs: settings.timeoutMs,
    })
    const body = parseJson<Envelope<T>>(NAME, reply)
    if (reply.status >= 400 || body.success !== true) {
      const first = body.errors?.[0]
      const detail = first ? `${first.message} (code ${first.code})` : `HTTP ${reply.status}`
      const kind = reply.status < 400 ? 'rejected' : kindOfStatus(reply.status)
      throw new ProviderError(NAME, kind, `Cloudflare: ${detail}`, reply.status)
    }
    return body
  }

  /** Walks result_info pages until total_pages. */
  const all = async <T>(path: string): Promise<T[]> => {
    const out: T[] = []
    for (let page = 1; ; page++) {
      const sep = path.includes('?') ? '&' : '?'
      const body = await call<T[]>('GET', `${path}${sep}page=${page}&per_page=${PER_PAGE}`)
      if (!Array.isArray(body.result)) throw new ProviderError(NAME, 'bad_response', 'Cloudflare: list result is not an array')
      out.push(...body.result)
      if (page >= (body.result_info?.total_pages ?? 1) || body.result.length === 0) return out
    }
  }

  const toPayload = (zone: ProviderZone, r: RecordInput) => {
    const base = { type: r.type, name: absoluteName(r.name, zone.name), ttl: r.ttl, proxied: r.proxied }
    if (r.type === 'SRV') {
      const srv = parseSrv(r.content)
      if (!srv) throw new ProviderError(NAME, 'rejected', 'Cloudflare: SRV content must be "weight port target"')
      return { ...base, data: { priority: r.priority ?? 0, ...srv } }
    }
    if (r.type === 'CAA') {
      const caa = parseCaa(r.content)
      if (!caa) throw new ProviderError(NAME, 'rejected', 'Cloudflare: CAA content must be "flags tag value"')
      return { ...base, data: caa }
    }
    return { ...base, content: r.content, ...(r.type === 'MX' ? { priority: r.priority ?? 0 } : {}) }
  }

  const fromCf = (zone: ProviderZone, r: CfRecord): ProviderRecord | null => {
    if (!isRecordType(r.type)) return null
    let content = r.content
    let priority = r.priority ?? null
    if (r.type === 'SRV' && r.data) {
      content = `${r.data.weight} ${r.data.port} ${stripDot(String(r.data.target))}`
      priority = Number(r.data.priority)
    } else if (r.type === 'CAA' && r.data) {
      content = formatCaa({ flags: Number(r.data.flags), tag: String(r.data.tag), value: String(r.data.value) })
    } else if (r.type === 'CNAME' || r.type === 'NS' || r.type === 'MX') {
      content = stripDot(content)
    }
    if (r.type !== 'MX' && r.type !== 'SRV') priority = null
    return { id: r.id, type: r.type, name: relativeName(r.name, zone.name), content, ttl: r.ttl, priority, proxied: r.proxied === true }
  }

  const recordPath = (zone: ProviderZone, id?: string) =>
    `zones/${encodeURIComponent(zone.id)}/dns_records${id === undefined ? '' : `/${encodeURIComponent(id)}`}`

  return {
    async testConnection() {
      let active = false
      const ok = await succeeds(async () => {
        active = (await call<{ status: string }>('GET', 'user/tokens/verify')).result?.status === 'active'
      })
      return ok && active
    },
    async listZones() {
      const zones = await all<{ id: string; name: string }>('zones')
      return zones.map((z) => ({ id: z.id, name: z.name.toLowerCase() }))
    },
    async listRecords(zone) {
      const records = await all<CfRecord>(recordPath(zone))
      return records.map((r) => fromCf(zone, r)).filter((r): r is ProviderRecord => r !== null)
    },
    async createRecord(zone, record) {
      const body = await call<CfRecord>('POST', recordPath(zone), toPayload(zone, record))
      return fromCf(zone, body.result) ?? { ...record, id: body.result.id }
    },
    async updateRecord(zone, id, record) {
      // PUT overwrites the whole record, matching our PUT semantics.
      const body = await call<CfRecord>('PUT', recordPath(zone, id), toPayload(zone, record))
      return fromCf(zone, body.result) ?? { ...record, id: body.result.id }
    },
    async deleteRecord(zone, id) {
      await call<{ id: string }>('DELETE', recordPath(zone, id))
    },
  }
}

export default defineProvider({
  name: NAME,
  credentialKeys: ['api_token'],
  recordTypes: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'NS'],
  create: client,
})
