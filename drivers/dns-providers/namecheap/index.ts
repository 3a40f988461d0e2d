import {
  type DnsProviderDriver,
  defineProvider,
  ProviderError,
  type ProviderErrorKind,
  type ProviderRecord,
  type ProviderSettings,
  type ProviderZone,
  type RecordInput,
} from '../driver.js'
import { send, succeeds } from '../http.js'
import { isRecordType, stripDot } from '../names.js'
import { apiStatus, elements, text } from './xml.js'

/**
 * Namecheap XML API (https://api.namecheap.com/xml.response): global
 * parameters ApiUser, ApiKey, UserName, ClientIp and Command on every call;
 * replies are <ApiResponse Status="OK|ERROR"> with <Errors><Error Number>.
 * Zones: namecheap.domains.getList (Page, PageSize ≤ 100, <Paging>).
 * Records: namecheap.domains.dns.getHosts (SLD, TLD) → <Host HostId Name Type
 * Address MXPref TTL>; namecheap.domains.dns.setHosts REPLACES the whole host
 * set (HostName1..n, RecordType, Address, MXPref, TTL; EmailType=MX when MX
 * records exist), so every write is read-modify-write of the full set.
 * Calls are POSTed form-encoded (the docs recommend POST for setHosts) so the
 * key never sits in a URL. Host ids may change on every setHosts: writes
 * re-read the set and return the id the record has now.
 */
const NAME = 'namecheap'
const PAGE_SIZE = 100
const AUTH_ERRORS = new Set(['1010101', '1010102', '1011101', '1011102', '1011150', '1017101', '1017105', '1017150'])
const NOT_FOUND_ERRORS = new Set(['2019166', '2016166'])

interface Host {
  HostId: string
  Name: string
  Type: string
  Address: string
  MXPref: string
  TTL: string
}

function errorKind(number: string, message: string): ProviderErrorKind {
  if (AUTH_ERRORS.has(number) || /api ?key|api ?user|ip is not|whitelist/i.test(message)) return 'auth'
  if (NOT_FOUND_ERRORS.has(number)) return 'not_found'
  return 'rejected'
}

function client(settings: ProviderSettings): DnsProviderDriver {
  const { api_user, api_key, client_ip } = settings.credentials as Record<string, string>

  const call = async (command: string, params: Record<string, string> = {}): Promise<string> => {
    const form = new URLSearchParams({
      ApiUser: api_user,
      ApiKey: api_key,
      UserName: api_user,
      ClientIp: client_ip,
      Command: command,
      ...params,
    })
    const reply = await send(NAME, {
      method: 'POST',
      url: settings.baseUrl,
      form,
      timeoutMs: settings.timeoutMs,
      headers: { accept: 'application/xml' },
    })
    const status = apiStatus(reply.text)
    if (!status)
      throw new ProviderError(NAME, 'bad_response', `Namecheap answered HTTP ${reply.status} without an ApiResponse`, reply.status)
    if (!status.ok || reply.status >= 400) {
      const first = status.errors[0] ?? { number: '', message: `HTTP ${reply.status}` }
      throw new ProviderError(NAME, errorKind(first.number, first.message), `Namecheap: ${first.message} (${first.number})`, reply.status)
    }
    return reply.text
  }

  const split = (zone: ProviderZone) => {
    const dot = zone.name.indexOf('.')
    return { SLD: zone.name.slice(0, dot), TLD: zone.name.slice(dot + 1) }
  }

  const getHosts = async (zone: ProviderZone): Promise<Host[]> => {
    const xml = await call('namecheap.domains.dns.getHosts', split(zone))
    return elements(xml, 'Host') as unknown as Host[]
  }

  const setHosts = async (zone: ProviderZone, hosts: Array<Omit<Host, 'HostId'>>) => {
    const params: Record<string, string> = split(zone)
    hosts.forEach((h, i) => {
      const n = i + 1
      params[`HostName${n}`] = h.Name
      params[`RecordType${n}`] = h.Type
      params[`Address${n}`] = h.Address
      params[`MXPref${n}`] = h.MXPref || '10'
      params[`TTL${n}`] = h.TTL
    })
    if (hosts.some((h) => h.Type === 'MX')) params.EmailType = 'MX'
    const xml = await call('namecheap.domains.dns.setHosts', params)
    const result = elements(xml, 'DomainDNSSetHostsResult')[0]
    if (result?.IsSuccess !== 'true') throw new ProviderError(NAME, 'rejected', 'Namecheap: setHosts did not succeed')
  }

  const toHost = (r: RecordInput): Omit<Host, 'HostId'> => ({
    Name: r.name,
    Type: r.type,
    Address: r.type === 'CNAME' || r.type === 'NS' || r.type === 'MX' ? `${stripDot(r.content)}.` : r.content,
    MXPref: r.type === 'MX' ? String(r.priority ?? 10) : '10',
    TTL: String(r.ttl),
  })

  const fromHost = (h: Host): ProviderRecord | null => {
    if (!isRecordType(h.Type)) return null
    const hostLike = h.Type === 'CNAME' || h.Type === 'NS' || h.Type === 'MX'
    return {
      id: h.HostId,
      type: h.Type,
      name: h.Name.toLowerCase(),
      content: hostLike ? stripDot(h.Address) : h.Address,
      ttl: Number(h.TTL),
      priority: h.Type === 'MX' ? Number(h.MXPref) : null,
      proxied: false,
    }
  }

  /** After setHosts: the (last) host now holding exactly this record. */
  const locate = async (zone: ProviderZone, record: RecordInput): Promise<ProviderRecord> => {
    const wanted = toHost(record)
    const same = (h: Host) =>
      h.Name.toLowerCase() === wanted.Name && h.Type === wanted.Type && stripDot(h.Address) === stripDot(wanted.Address)
    const found = (await getHosts(zone)).filter(same).pop()
    if (!found) throw new ProviderError(NAME, 'bad_response', 'Namecheap: the record written is missing from getHosts')
    return fromHost(found) as ProviderRecord
  }

  const strip = ({ HostId: _id, ...rest }: Host) => rest

  return {
    testConnection: () => succeeds(() => call('namecheap.domains.getList', { PageSize: '10' })),
    async listZones() {
      const zones: ProviderZone[] = []
      for (let page = 1; ; page++) {
        const xml = await call('namecheap.domains.getList', { Page: String(page), PageSize: String(PAGE_SIZE) })
        const names = elements(xml, 'Domain')
          .map((d) => (d.Name ?? '').toLowerCase())
          .filter(Boolean)
        zones.push(...names.map((n) => ({ id: n, name: n })))
        const total = Number(text(xml, 'TotalItems') ?? zones.length)
        if (names.length === 0 || zones.length >= total) return zones
      }
    },
    async listRecords(zone) {
      return (await getHosts(zone)).map(fromHost).filter((r): r is ProviderRecord => r !== null)
    },
    async createRecord(zone, record) {
      const hosts = await getHosts(zone)
      await setHosts(zone, [...hosts.map(strip), toHost(record)])
      return locate(zone, record)
    },
    async updateRecord(zone, id, record) {
      const hosts = await getHosts(zone)
      if (!hosts.some((h) => h.HostId === id)) throw new ProviderError(NAME, 'not_found', `Namecheap: host ${id} not found`)
      await setHosts(
        zone,
        hosts.map((h) => (h.HostId === id ? toHost(record) : strip(h))),
      )
      return locate(zone, record)
    },
    async deleteRecord(zone, id) {
      const hosts = await getHosts(zone)
      if (!hosts.some((h) => h.HostId === id)) throw new ProviderError(NAME, 'not_found', `Namecheap: host ${id} not found`)
      await setHosts(zone, hosts.filter((h) => h.HostId !== id).map(strip))
    },
  }
}

export default defineProvider({
  name: NAME,
  credentialKeys: ['api_user', 'api_key', 'client_ip'],
  // The setHosts API has no SRV type.
  recordTypes: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'CAA', 'NS'],
  create: client,
})
