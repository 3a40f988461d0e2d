import type { ZoneData, ZoneRecord } from '../server/index.js'
import type { RecordRow } from '../store/records.js'
import type { ZoneRow } from '../store/zones.js'
import type { DnsContext } from './context.js'

/**
 * Keeps the built-in server in step with the database: every change to an
 * authoritative zone bumps its serial and pushes the whole zone, so answers
 * follow the stored records at once.
 */

/** SOA content as stored (and as the server takes it): mname rname refresh retry expire minimum. */
export function soaContent(zone: string, nameservers: string[]): string {
  return `${nameservers[0] ?? `ns1.${zone}`} hostmaster.${zone} 3600 600 1209600 300`
}

/** The SOA as the API shows it: the serial in its usual place, after rname. */
export function displaySoa(content: string, serial: number): string {
  const [mname, rname, ...timers] = content.split(/\s+/)
  return [mname, rname, serial, ...timers].join(' ')
}

export function fqdn(name: string, zone: string): string {
  return name === '@' ? zone : `${name}.${zone}`
}

export function toZoneData(zone: ZoneRow, rows: RecordRow[]): ZoneData {
  const records: ZoneRecord[] = rows.map((r) => ({
    name: fqdn(r.name, zone.zone),
    type: r.type,
    ttl: r.ttl,
    content: r.content,
    priority: r.priority,
  }))
  return { name: zone.zone, serial: zone.serial, records }
}

/** A serial that always grows: unix seconds, or one more than the last when changes come faster. */
export function nextSerial(ctx: DnsContext, current: number): number {
  return Math.max(current + 1, Math.floor(ctx.api.now() / 1000))
}

/** Bumps the serial of an authoritative zone (inside the caller's transaction). */
export function bumpSerial(ctx: DnsContext, zone: ZoneRow): void {
  if (zone.mode !== 'authoritative') return
  zone.serial = nextSerial(ctx, zone.serial)
  ctx.zones.setSerial(zone.id, zone.serial, ctx.iso())
}

/** Pushes the zone as stored now to the server. */
export function publish(ctx: DnsContext, zone: ZoneRow): void {
  if (zone.mode !== 'authoritative') return
  const fresh = ctx.zones.byName(zone.zone)
  if (fresh) ctx.server.putZone(toZoneData(fresh, ctx.records.list(fresh.id)))
}

/**
 * Pushes the records of a few names of the zone as stored now: what a record write changed. The
 * cost is those names' records, so a write into a 10,000-record zone stays cheap.
 */
export function publishNames(ctx: DnsContext, zone: ZoneRow, names: string[]): void {
  if (zone.mode !== 'authoritative') return
  const owners = [...new Set(names)].map((name) => {
    const owner = fqdn(name, zone.zone)
    const challenges = (ctx.challenges.get(owner) ?? []).map((content) => ({
      name: owner,
      type: 'TXT' as const,
      ttl: 60,
      content,
      priority: null,
    }))
    return { name: owner, records: [...toZoneData(zone, ctx.records.byName(zone.id, name)).records, ...challenges] }
  })
  if (!ctx.server.patchZone(zone.zone, zone.serial, owners)) publish(ctx, zone)
}

/** A change of one zone's records; an update may carry the id the provider gave the record anew. */
export interface ZoneChange {
  insert?: RecordRow[]
  update?: Array<{ row: RecordRow; id?: string; previousName: string }>
  remove?: RecordRow[]
}

/**
 * Stores rows of a zone (inside the caller's transaction): the one place a record row is
 * written, so an RRset's TTL follows its last write wherever the write comes from.
 */
export function storeRecords(ctx: DnsContext, zone: Pick<ZoneRow, 'id' | 'mode'>, change: ZoneChange): void {
  const authoritative = zone.mode === 'authoritative'
  for (const row of change.insert ?? []) {
    ctx.records.insert(row)
    if (authoritative) ctx.records.setRrsetTtl(zone.id, row.name, row.type, row.ttl)
  }
  for (const { row, id } of change.update ?? []) {
    ctx.records.update(row, id)
    if (authoritative) ctx.records.setRrsetTtl(zone.id, row.name, row.type, row.ttl)
  }
  for (const row of change.remove ?? []) ctx.records.remove(zone.id, row.id)
}

/**
 * The zone writer of record writes and DDNS: the rows and the serial in one transaction,
 * then the server serves the names the change touched.
 */
export function writeZone(ctx: DnsContext, zone: ZoneRow, change: ZoneChange): void {
  ctx.transaction(() => {
    storeRecords(ctx, zone, change)
    bumpSerial(ctx, zone)
  })
  const names = [
    ...(change.insert ?? []).map((r) => r.name),
    ...(change.update ?? []).flatMap((u) => [u.previousName, u.row.name]),
    ...(change.remove ?? []).map((r) => r.name),
  ]
  publishNames(ctx, zone, names)
}

/** Loads every authoritative zone of every user into the server (plugin start). */
export function publishAll(ctx: DnsContext): void {
  ctx.server.setZones(ctx.zones.authoritative().map((z) => toZoneData(z, ctx.records.list(z.id))))
}
