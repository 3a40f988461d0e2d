import {
  type DnsProviderDriver,
  defineProvider,
  ProviderError,
  type ProviderRecord,
  type ProviderSettings,
  type ProviderZone,
  type RecordInput,
} from '../driver.js'
import { joinUrl, kindOfStatus, parseJson, send, succeeds } from '../http.js'
import { isRecordType, relativeName, stripDot } from '../names.js'

/**
 * Porkbun API v3 (https://api.porkbun.com/api/json/v3): every call is a POST
 * whose JSON body carries `apikey` and `secretapikey`; replies are
 * { status: 'SUCCESS', ... } or { status: 'ERROR', message }.
 * ping, domain/listAll (1000 per page, `start` offset), dns/retrieve/{domain},
 * dns/create/{domain} → { id }, dns/edit/{domain}/{id}, dns/delete/{domain}/{id}.
 * Record names come back fully qualified; they are written as the subdomain
 * ('' for the apex). ttl and prio travel as strings.
 */
const NAME = 'porkbun'
const LIST_PAGE = 1000

interface PbReply {
  status?: string
  message?: string
  [key: string]: unknown
}

interface PbRecord {
  id: string | number
  name: string
  type: string
  content: string
  ttl: string | number
  prio?: string | number | null
}

function client(settings: ProviderSettings): DnsProviderDriver {
  const auth = { apikey: settings.credentials.apikey, secretapikey: settings.credentials.secretapikey }

  const call = async <T extends PbReply>(path: string, body: Record<string, unknown> = {}): Promise<T> => {
    const reply = await send(NAME, {
      method: 'POST',
      url: joinUrl(settings.baseUrl, path),
      json: { ...auth, ...body },
      timeoutMs: settings.timeoutMs,
    })
    const parsed = parseJson<T>(NAME, reply)
    if (reply.status >= 400 || parsed.status !== 'SUCCESS') {
      const message = typeof parsed.message === 'string' ? parsed.message : `HTTP ${reply.status}`
      // Porkbun answers refused keys with HTTP 400 and a message naming the key.
      const kind = /api ?key/i.test(message)
        ? 'auth'
        : /invalid (record )?id|not found|invalid domain/i.test(message)
          ? 'not_found'
          : reply.status < 400
            ? 'rejected'
            : kindOfStatus(reply.status)
      throw new ProviderError(NAME, kind, `Porkbun: ${message}`, reply.status)
    }
    return parsed
  }

  const domainPath = (verb: string, zone: ProviderZone, id?: string) =>
    `dns/${verb}/${encodeURIComponent(zone.name)}${id === undefined ? '' : `/${encodeURIComponent(id)}`}`

  const toBody = (r: RecordInput) => ({
    name: r.name === '@' ? '' : r.name,
    type: r.type,
    content: r.content,
    ttl: String(r.ttl),
    ...(r.priority !== null && (r.type === 'MX' || r.type === 'SRV') ? { prio: String(r.priority) } : {}),
  })

  const fromPb = (zone: ProviderZone, r: PbRecord): ProviderRecord | null => {
    if (!isRecordType(r.type)) return null
    const hasPrio = r.type === 'MX' || r.type === 'SRV'
    const content = r.type === 'CNAME' || r.type === 'NS' || r.type === 'MX' ? stripDot(r.content) : r.content
    return {
      id: String(r.id),
      type: r.type,
      name: relativeName(r.name, zone.name),
      content,
      ttl: Number(r.ttl),
      priority: hasPrio ? Number(r.prio ?? 0) : null,
      proxied: false,
    }
  }

  return {
    testConnection: () => succeeds(() => call('ping')),
    async listZones() {
      const zones: ProviderZone[] = []
      for (let start = 0; ; start += LIST_PAGE) {
        const reply = await call<PbReply & { domains?: Array<{ domain: string }> }>('domain/listAll', { start: String(start) })
        const page = reply.domains ?? []
        zones.push(...page.map((d) => ({ id: d.domain.toLowerCase(), name: d.domain.toLowerCase() })))
        if (page.length < LIST_PAGE) return zones
      }
    },
    async listRecords(zone) {
      const reply = await call<PbReply & { records?: PbRecord[] }>(domainPath('retrieve', zone))
      if (!Array.isArray(reply.records)) throw new ProviderError(NAME, 'bad_response', 'Porkbun: records missing from the reply')
      return reply.records.map((r) => fromPb(zone, r)).filter((r): r is ProviderRecord => r !== null)
    },
    async createRecord(zone, record) {
      const reply = await call<PbReply & { id?: string | number }>(domainPath('create', zone), toBody(record))
      if (reply.id === undefined) throw new ProviderError(NAME, 'bad_response', 'Porkbun: create answered without an id')
      return { ...record, id: String(reply.id), proxied: false }
    },
    async updateRecord(zone, id, record) {
      await call(domainPath('edit', zone, id), toBody(record))
      return { ...record, id, proxied: false }
    },
    async deleteRecord(zone, id) {
      await call(domainPath('delete', zone, id))
    },
  }
}

export default defineProvider({
  name: NAME,
  credentialKeys: ['apikey', 'secretapikey'],
  recordTypes: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'NS'],
  create: client,
})
