import { isIPv4, isIPv6 } from 'node:net'
import { parseCaa, parseSrv, stripDot } from '../../../drivers/dns-providers/names.js'
import { HttpError } from '../../../core/plugin-api.js'
import type { RecordInput, RecordType } from '../../../drivers/dns-providers/driver.js'
import { toWireRecord } from '../server/records.js'
import { canonicalIPv6, txtText } from '../server/rdata.js'

/**
 * The record validation table of the spec, one rule per type, plus zone and
 * record names. Failures are 400 VALIDATION_ERROR with { field, constraint }.
 */

/** Zone labels: letters, digits, inner hyphens. */
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/
/** Record names and targets also take underscores (_dmarc, _sip._tcp, s1._domainkey...). */
const NAME_LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/

export const invalid = (field: string, constraint: string, message: string) =>
  new HttpError('VALIDATION_ERROR', message, { field, constraint })

export function isHostName(value: string): boolean {
  const host = stripDot(value.toLowerCase())
  if (host.length === 0 || host.length > 253) return false
  return host.split('.').every((l) => NAME_LABEL.test(l))
}

/** Lower-cases and checks a zone apex: at least two LDH labels. */
export function normalizeZoneName(raw: string): string {
  const zone = stripDot(raw.trim().toLowerCase())
  const labels = zone.split('.')
  if (zone.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1) as string)) {
    throw invalid('zone', 'domain', `zone "${raw}" is not a valid domain name`)
  }
  return zone
}

/** A record name relative to its zone: '@', 'www', '_dmarc', '*.dev'; a name ending in the zone is made relative. */
export function normalizeRecordName(raw: string, zone: string, field = 'name'): string {
  let name = stripDot(raw.trim().toLowerCase())
  if (name === '' || name === '@' || name === zone) return '@'
  if (name.endsWith(`.${zone}`)) name = name.slice(0, -(zone.length + 1))
  const labels = name.split('.')
  const ok = labels.every((l, i) => NAME_LABEL.test(l) || (i === 0 && l === '*'))
  if (!ok || `${name}.${zone}`.length > 253) throw invalid(field, 'hostname', `${field} "${raw}" is not a valid record name`)
  return name
}

export interface RecordBody {
  type: RecordType
  name: string
  content: string
  ttl?: number
  priority?: number | null
  proxied?: boolean
}

/** A record that passed the table: the neutral form the provider drivers take too. */
export type ValidRecord = RecordInput

export const DEFAULT_TTL = 3600

/**
 * Applies the table; `prefix` names the body path in errors ('records[2].' for templates). For the
 * built-in server (`served`), content is brought to the form it serves (TXT text, RFC 5952 IPv6) and
 * must pass the server's own conversion: what the API accepts, the server answers.
 */
export function validateRecord(body: RecordBody, zone: string, prefix = '', served = false): ValidRecord {
  const field = (f: string) => `${prefix}${f}`
  const fail = (f: string, constraint: string, message: string) => invalid(field(f), constraint, message)
  const name = normalizeRecordName(body.name, zone, field('name'))
  const ttl = body.ttl ?? DEFAULT_TTL
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > 86400) throw fail('ttl', 'range', 'ttl must be an integer from 1 to 86400')
  let content = body.content.trim()
  const needsPriority = body.type === 'MX' || body.type === 'SRV'
  const priority = body.priority ?? null
  if (needsPriority && priority === null) throw fail('priority', 'required', `priority is required for ${body.type} records`)
  if (!needsPriority && priority !== null) throw fail('priority', 'not_allowed', `priority applies to MX and SRV records only`)
  if (priority !== null && (!Number.isInteger(priority) || priority < 0 || priority > 65535)) {
    throw fail('priority', 'range', 'priority must be an integer from 0 to 65535')
  }
  switch (body.type) {
    case 'A':
      if (!isIPv4(content)) throw fail('content', 'ipv4', 'A content must be an IPv4 address')
      break
    case 'AAAA':
      if (!isIPv6(content)) throw fail('content', 'ipv6', 'AAAA content must be an IPv6 address')
      content = served ? (canonicalIPv6(content) as string) : content.toLowerCase()
      break
    case 'CNAME':
    case 'NS':
    case 'MX':
      if (!isHostName(content)) throw fail('content', 'hostname', `${body.type} content must be a host name`)
      content = stripDot(content.toLowerCase())
      break
    case 'SRV': {
      const srv = parseSrv(content)
      if (!srv || !isHostName(srv.target)) throw fail('content', 'srv_format', "SRV content must be 'weight port target'")
      content = `${srv.weight} ${srv.port} ${srv.target.toLowerCase()}`
      break
    }
    case 'CAA': {
      const caa = parseCaa(content)
      if (!caa || caa.value === '') throw fail('content', 'caa_format', "CAA content must be 'flags tag value'")
      content = `${caa.flags} ${caa.tag} "${caa.value}"`
      break
    }
    case 'TXT': {
      const text = served ? txtText(body.content) : body.content
      if (text === null) throw fail('content', 'txt_format', 'TXT quoted strings must spell UTF-8 text')
      content = text
      break
    }
  }
  if (served) {
    try {
      toWireRecord({ name: zone, type: body.type, ttl, content, priority }, 0)
    } catch (err) {
      throw fail('content', 'encodable', `${body.type} content cannot be served: ${(err as Error).message}`)
    }
  }
  return { type: body.type, name, content, ttl, priority, proxied: body.proxied ?? false }
}
