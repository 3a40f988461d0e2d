import { isIPv4 } from 'node:net'
import type { ZoneRecord } from './types.js'
import { canonicalIPv6, splitTxt, txtText } from './rdata.js'

/** Wire type codes of the types we serve (RFC 1035, 2782, 3596, 8659). */
export const QTYPE = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  OPT: 41,
  ANY: 255,
  CAA: 257,
} as const

/**
 * One record in the shape dns2's Packet.Resource encoders read
 * (address / ns / domain / exchange / data / target / flags...), minus the owner
 * name, which the encoder adds per response.
 */
export interface WireRecord {
  type: number
  class: 1
  ttl: number
  [field: string]: unknown
}

const HOST_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/i

/** Lower-cases and drops a trailing dot; null when not a usable host name. */
export function normaliseHost(raw: string): string | null {
  const host = raw.trim().toLowerCase().replace(/\.$/, '')
  if (host.length === 0 || host.length > 253) return null
  for (const label of host.split('.')) if (!HOST_LABEL.test(label)) return null
  return host
}

function u16(raw: string | number | null | undefined): number | null {
  if (raw === null || raw === undefined || raw === '') return null
  const n = typeof raw === 'number' ? raw : Number(raw)
  return Number.isInteger(n) && n >= 0 && n <= 65535 ? n : null
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value
}

export interface SoaFields {
  primary: string
  admin: string
  refresh: number
  retry: number
  expiration: number
  minimum: number
}

/** "mname rname refresh retry expire minimum" (serial comes from the zone). */
export function parseSoa(content: string): SoaFields | null {
  const parts = content.trim().split(/\s+/)
  if (parts.length !== 6) return null
  const primary = normaliseHost(parts[0])
  const admin = normaliseHost(parts[1])
  const nums = parts.slice(2).map(Number)
  if (!primary || !admin || nums.some((n) => !Number.isInteger(n) || n < 0 || n > 0x7fffffff)) return null
  const [refresh, retry, expiration, minimum] = nums
  return { primary, admin, refresh, retry, expiration, minimum }
}

/**
 * Converts one stored record to its encoder fields; throws a short reason
 * when the content cannot be put on the wire (the caller logs and skips it).
 */
export function toWireRecord(record: ZoneRecord, serial: number): WireRecord {
  const ttl = record.ttl >>> 0
  const content = record.content.trim()
  switch (record.type) {
    case 'A':
      if (!isIPv4(content)) throw new Error('not an IPv4 address')
      return { class: 1, ttl, type: QTYPE.A, address: content }
    case 'AAAA': {
      // dns2 encodes the hexadecimal form only: ::ffff:1.2.3.4 goes out as ::ffff:102:304.
      const address = canonicalIPv6(content)
      if (!address) throw new Error('not an IPv6 address')
      return { class: 1, ttl, type: QTYPE.AAAA, address }
    }
    case 'CNAME':
    case 'NS': {
      const host = normaliseHost(content)
      if (!host) throw new Error('not a host name')
      return record.type === 'NS' ? { class: 1, ttl, type: QTYPE.NS, ns: host } : { class: 1, ttl, type: QTYPE.CNAME, domain: host }
    }
    case 'MX': {
      const host = content === '.' ? '' : normaliseHost(content)
      const priority = u16(record.priority)
      if (host === null || priority === null) throw new Error('needs a host and a priority 0..65535')
      return { class: 1, ttl, type: QTYPE.MX, exchange: host, priority }
    }
    case 'SRV': {
      const [weight, port, target, ...rest] = content.split(/\s+/)
      const host = target === '.' ? '' : normaliseHost(target ?? '')
      const fields = { priority: u16(record.priority), weight: u16(weight), port: u16(port) }
      if (rest.length || host === null || Object.values(fields).includes(null)) throw new Error("needs 'weight port target' and a priority")
      return { type: QTYPE.SRV, class: 1, ttl, priority: fields.priority, weight: fields.weight, port: fields.port, target: host }
    }
    case 'CAA': {
      // RFC 8659 4.1: tag of 1..15 ASCII letters and digits.
      const match = /^(\d{1,3})\s+([a-z0-9]{1,15})\s+(.*)$/i.exec(content)
      if (!match || Number(match[1]) > 255) throw new Error("needs 'flags tag value'")
      return { class: 1, ttl, type: QTYPE.CAA, flags: Number(match[1]), tag: match[2].toLowerCase(), value: unquote(match[3]) }
    }
    case 'TXT': {
      const text = txtText(record.content)
      if (text === null) throw new Error('the quoted strings do not spell UTF-8 text')
      // RDLENGTH is 16 bits: one length byte per 255 bytes of text must fit too.
      if (Buffer.byteLength(text) > 65_000) throw new Error('TXT longer than 65,000 bytes')
      return { class: 1, ttl, type: QTYPE.TXT, data: splitTxt(text) }
    }
    case 'SOA': {
      const soa = parseSoa(content)
      if (!soa) throw new Error("needs 'mname rname refresh retry expire minimum'")
      return { type: QTYPE.SOA, class: 1, ttl, ...soa, serial: serial >>> 0 }
    }
    default:
      throw new Error(`type ${String((record as ZoneRecord).type)} is not served`)
  }
}

/** Host names a record points at, for additional-section A/AAAA. */
export function targetOf(rr: WireRecord): string | null {
  if (rr.type === QTYPE.MX) return (rr.exchange as string) || null
  if (rr.type === QTYPE.SRV) return (rr.target as string) || null
  if (rr.type === QTYPE.NS) return rr.ns as string
  return null
}
