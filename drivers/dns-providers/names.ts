import { RECORD_TYPES, type RecordType } from './driver.js'

/**
 * Conversions between the plugin's neutral record form and what providers
 * send: fully-qualified names, trailing dots, '@' for the apex, and the
 * structured SRV/CAA fields some APIs use.
 */

export function stripDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host
}

/** 'www.example.com' or 'example.com' (any case, optional dot) → 'www' / '@'. */
export function relativeName(fqdn: string, zone: string): string {
  const name = stripDot(fqdn).toLowerCase()
  const z = zone.toLowerCase()
  if (name === '' || name === '@' || name === z) return '@'
  if (name.endsWith(`.${z}`)) return name.slice(0, -(z.length + 1))
  return name
}

/** 'www' → 'www.example.com'; '@' → 'example.com'. */
export function absoluteName(name: string, zone: string): string {
  return name === '@' ? zone : `${name}.${zone}`
}

export function isRecordType(type: string): type is RecordType {
  return (RECORD_TYPES as readonly string[]).includes(type)
}

export interface SrvParts {
  weight: number
  port: number
  target: string
}

/** SRV content 'weight port target' (the priority travels apart). */
export function parseSrv(content: string): SrvParts | null {
  const m = /^(\d{1,5})\s+(\d{1,5})\s+(\S+)$/.exec(content.trim())
  if (!m) return null
  const weight = Number(m[1])
  const port = Number(m[2])
  if (weight > 65535 || port > 65535) return null
  return { weight, port, target: stripDot(m[3] as string) }
}

export interface CaaParts {
  flags: number
  tag: string
  value: string
}

/** CAA content 'flags tag value'; the value may be quoted ('0 issue "letsencrypt.org"'). */
export function parseCaa(content: string): CaaParts | null {
  const m = /^(\d{1,3})\s+([A-Za-z0-9]+)\s+(.+)$/.exec(content.trim())
  if (!m) return null
  const flags = Number(m[1])
  if (flags > 255) return null
  let value = (m[3] as string).trim()
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
  return { flags, tag: (m[2] as string).toLowerCase(), value }
}

export function formatCaa(parts: CaaParts): string {
  return `${parts.flags} ${parts.tag} "${parts.value}"`
}
