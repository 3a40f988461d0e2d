import { FakeZones, type FakeReply, type FakeServer, type StoredRecord, startFake } from '../../test/fake-server.js'
import type { Seed } from '../../test/contract.js'
import { encodeXml } from '../xml.js'

/**
 * Namecheap's XML API as documented: one endpoint (/xml.response), global
 * parameters ApiUser, ApiKey, UserName, ClientIp, Command (query string or
 * form body), <ApiResponse Status> replies with <Errors>, getList paging,
 * getHosts/setHosts where setHosts replaces the whole set. This stand-in
 * renumbers every HostId on setHosts: the strictest reading of "replaces".
 */
export interface NamecheapFake extends FakeServer {
  state: FakeZones
}

export interface NamecheapKeys {
  api_user: string
  api_key: string
  client_ip: string
}

const HOST_TYPES = new Set(['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'MX', 'MXE', 'NS', 'TXT', 'URL', 'URL301', 'FRAME'])

const envelope = (command: string, inner: string): FakeReply => ({
  status: 200,
  contentType: 'text/xml; charset=utf-8',
  body: `<?xml version="1.0" encoding="utf-8"?>\n<ApiResponse Status="OK" xmlns="http://api.namecheap.com/xml.response">\n  <Errors />\n  <Warnings />\n  <RequestedCommand>${command.toLowerCase()}</RequestedCommand>\n  <CommandResponse Type="${command}">${inner}</CommandResponse>\n  <Server>PHX01APIEXT01</Server>\n  <GMTTimeDifference>--5:00</GMTTimeDifference>\n  <ExecutionTime>0.05</ExecutionTime>\n</ApiResponse>`,
})

const failure = (number: string, message: string): FakeReply => ({
  status: 200,
  contentType: 'text/xml; charset=utf-8',
  body: `<?xml version="1.0" encoding="utf-8"?>\n<ApiResponse Status="ERROR" xmlns="http://api.namecheap.com/xml.response">\n  <Errors>\n    <Error Number="${number}">${encodeXml(message)}</Error>\n  </Errors>\n  <Warnings />\n  <RequestedCommand />\n  <Server>PHX01APIEXT01</Server>\n  <GMTTimeDifference>--5:00</GMTTimeDifference>\n  <ExecutionTime>0.01</ExecutionTime>\n</ApiResponse>`,
})

const hostXml = (h: StoredRecord) =>
  `<host HostId="${h.id}" Name="${encodeXml(String(h.Name))}" Type="${h.Type}" Address="${encodeXml(String(h.Address))}" MXPref="${h.MXPref}" TTL="${h.TTL}" AssociatedAppTitle="" FriendlyName="" IsActive="true" IsDDNSEnabled="false" />`

export async function startNamecheap(keys: NamecheapKeys, zones: Record<string, Seed[]>): Promise<NamecheapFake> {
  const state = new FakeZones()
  for (const [zone, seeds] of Object.entries(zones)) {
    state.add(
      zone,
      seeds.map((s) => ({ Name: s.name, Type: s.type, Address: s.content, MXPref: String(s.priority ?? 10), TTL: String(s.ttl) })),
    )
  }

  const fake = await startFake((req) => {
    const p = new URLSearchParams(req.query)
    if (req.method === 'POST') for (const [k, v] of new URLSearchParams(req.body)) p.set(k, v)
    // Namecheap reads parameter names case-insensitively.
    const get = (name: string) => [...p].find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1]
    if (!get('ApiUser')) return failure('1010101', 'Parameter APIUser is missing')
    if (get('ApiKey') !== keys.api_key || get('ApiUser') !== keys.api_user || get('UserName') !== keys.api_user) {
      return failure('1011102', 'Parameter APIKey is invalid')
    }
    if (get('ClientIp') !== keys.client_ip) return failure('1011150', 'Parameter RequestIP is invalid')
    const command = get('Command') ?? ''
    if (command === 'namecheap.domains.getList') {
      const size = Math.min(100, Math.max(10, Number(get('PageSize') ?? 20)))
      const page = Math.max(1, Number(get('Page') ?? 1))
      const names = [...state.zones.keys()]
      const domains = names
        .slice((page - 1) * size, page * size)
        .map(
          (n, i) =>
            `<Domain ID="${100 + i}" Name="${n}" User="${keys.api_user}" Created="01/01/2024" Expires="01/01/2030" IsExpired="false" IsLocked="false" AutoRenew="true" WhoisGuard="ENABLED" IsPremium="false" IsOurDNS="true"/>`,
        )
      return envelope(
        command,
        `<DomainGetListResult>${domains.join('')}</DomainGetListResult><Paging><TotalItems>${names.length}</TotalItems><CurrentPage>${page}</CurrentPage><PageSize>${size}</PageSize></Paging>`,
      )
    }
    const domain = `${get('SLD') ?? ''}.${get('TLD') ?? ''}`
    const hosts = state.records(domain)
    if (command === 'namecheap.domains.dns.getHosts' || command === 'namecheap.domains.dns.setHosts') {
      if (!hosts) return failure('2019166', 'Domain not found')
    }
    if (command === 'namecheap.domains.dns.getHosts') {
      return envelope(
        command,
        `<DomainDNSGetHostsResult Domain="${domain}" EmailType="MX" IsUsingOurDNS="true">${(hosts as StoredRecord[]).map(hostXml).join('')}</DomainDNSGetHostsResult>`,
      )
    }
    if (command === 'namecheap.domains.dns.setHosts') {
      const next: StoredRecord[] = []
      for (let n = 1; get(`HostName${n}`) !== undefined; n++) {
        const type = (get(`RecordType${n}`) ?? '').toUpperCase()
        const ttl = Number(get(`TTL${n}`) ?? 1800)
        if (!HOST_TYPES.has(type)) return failure('2050900', `Invalid RecordType${n}: ${type}`)
        if (!(ttl >= 60 && ttl <= 60000)) return failure('2050900', `TTL${n} must be between 60 and 60000`)
        if (type === 'MX' && (get('EmailType') ?? '').toUpperCase() !== 'MX') return failure('2050900', 'MX records require EmailType=MX')
        next.push({
          id: state.id(),
          Name: get(`HostName${n}`),
          Type: type,
          Address: get(`Address${n}`) ?? '',
          MXPref: get(`MXPref${n}`) ?? '10',
          TTL: String(ttl),
        })
      }
      state.zones.set(domain, next)
      return envelope(command, `<DomainDNSSetHostsResult Domain="${domain}" IsSuccess="true"><Warnings /></DomainDNSSetHostsResult>`)
    }
    return failure('1010104', `Parameter Command is invalid: ${command}`)
  }, '/xml.response')
  return Object.assign(fake, { state })
}
