import { randomUUID } from 'node:crypto'
import { HttpError } from '../../../core/plugin-api.js'
import { type ProviderRecord, providers } from '../../../drivers/dns-providers/index.js'
import type { RecordRow } from '../store/records.js'
import type { ZoneRow } from '../store/zones.js'
import type { DnsContext } from './context.js'
import { viaProvider } from './providers.js'
import { type RecordBody, type ValidRecord, validateRecord } from './validate.js'
import { displaySoa, writeZone } from './zone-data.js'
import type { ZoneService } from './zones.js'

/**
 * Records of both kinds of zone. Authoritative: stored here, serial bumped,
 * zone pushed to the server in the same step; the TTL written last becomes the
 * TTL of the whole RRset (RFC 2181 5.2: an RRset is never served with mixed TTLs). Proxy: written at the provider
 * first (its id becomes ours), then mirrored locally for counts and DDNS.
 */

export interface RecordView {
  id: string
  zone_id: string
  type: string
  name: string
  content: string
  ttl: number
  priority: number | null
  proxied: boolean
}

export function viewRecord(r: RecordRow, zone: ZoneRow): RecordView {
  const content = r.type === 'SOA' ? displaySoa(r.content, zone.serial) : r.content
  return { id: r.id, zone_id: r.zone_id, type: r.type, name: r.name, content, ttl: r.ttl, priority: r.priority, proxied: r.proxied === 1 }
}

export function mirrorRows(ctx: DnsContext, zone: Pick<ZoneRow, 'id' | 'user_id'>, records: ProviderRecord[]): RecordRow[] {
  const at = ctx.iso()
  return records.map((r) => ({
    ...r,
    zone_id: zone.id,
    user_id: zone.user_id,
    proxied: r.proxied ? 1 : 0,
    ddns: 0,
    created_at: at,
    updated_at: at,
  }))
}

/** The spec's CNAME rule and duplicate check against the zone's records (and the batch being added). */
export function checkConflicts(
  existing: Array<Pick<RecordRow, 'id' | 'type' | 'name' | 'content'>>,
  rec: ValidRecord,
  exceptId?: string,
): void {
  const same = existing.filter((r) => r.name === rec.name && r.id !== exceptId)
  if (rec.type === 'CNAME' ? same.length > 0 : same.some((r) => r.type === 'CNAME')) {
    throw new HttpError('UNPROCESSABLE', `A CNAME cannot share the name ${rec.name} with other records`, {
      field: 'name',
      constraint: 'cname_exclusive',
    })
  }
  // TXT data is case-sensitive (RFC 1035 3.3.14); host names and the rest are not.
  const equal = (a: string, b: string) => (rec.type === 'TXT' ? a === b : a.toLowerCase() === b.toLowerCase())
  if (same.some((r) => r.type === rec.type && equal(r.content, rec.content))) {
    throw new HttpError('CONFLICT', `The zone already has this ${rec.type} record for ${rec.name}`)
  }
}

export function recordService(ctx: DnsContext, zones: ZoneService) {
  const emit = <D extends { id: string }>(type: string, userId: string, data: D) =>
    ctx.api.events.emit(`dns.record.${type}`, { userId, id: data.id, data })

  /** Checks what the zone's kind allows beyond the validation table. */
  const admit = (zone: ZoneRow, rec: ValidRecord) => {
    if (zone.mode === 'authoritative') {
      if (rec.proxied) throw new HttpError('UNPROCESSABLE', 'proxied applies to Cloudflare proxy zones only', { field: 'proxied' })
      return
    }
    const provider = ctx.accounts.get(zone.user_id, zone.provider_account_id as string)?.provider ?? ''
    if (rec.proxied && provider !== 'cloudflare')
      throw new HttpError('UNPROCESSABLE', 'proxied applies to Cloudflare proxy zones only', { field: 'proxied' })
    if (!providers.get(provider)?.recordTypes.includes(rec.type))
      throw new HttpError('UNPROCESSABLE', `${provider} cannot hold ${rec.type} records`, { field: 'type' })
  }

  const existing = (zone: ZoneRow, recordId: string) => {
    const row = ctx.records.get(zone.id, recordId)
    if (!row) throw new HttpError('NOT_FOUND', 'Record not found')
    if (row.type === 'SOA') throw new HttpError('UNPROCESSABLE', 'The SOA record is managed by the server')
    return row
  }

  /** Writes validated records; all or none for authoritative zones, undone one by one at a provider. */
  const insertAll = async (userId: string, zone: ZoneRow, recs: ValidRecord[]): Promise<RecordView[]> => {
    const at = ctx.iso()
    const rows: RecordRow[] = []
    if (zone.mode === 'authoritative') {
      for (const r of recs)
        rows.push({ ...r, id: randomUUID(), zone_id: zone.id, user_id: userId, proxied: 0, ddns: 0, created_at: at, updated_at: at })
      writeZone(ctx, zone, { insert: rows })
    } else {
      const { driver, pz } = zones.providerOf(zone)
      try {
        for (const r of recs) rows.push(...mirrorRows(ctx, zone, [await viaProvider(() => driver.createRecord(pz, r))]))
      } catch (err) {
        for (const done of rows) await driver.deleteRecord(pz, done.id).catch(() => undefined)
        throw err
      }
      writeZone(ctx, zone, { insert: rows })
    }
    const views = rows.map((r) => viewRecord(r, zone))
    for (const v of views) emit('created', userId, v)
    return views
  }

  return {
    async list(userId: string, zoneId: string): Promise<RecordView[]> {
      const zone = zones.findRow(userId, zoneId)
      if (zone.mode === 'proxy') {
        const { driver, pz } = zones.providerOf(zone)
        const fresh = await viaProvider(() => driver.listRecords(pz))
        ctx.records.replaceMirror(zone.id, mirrorRows(ctx, zone, fresh))
      }
      return ctx.records.list(zone.id).map((r) => viewRecord(r, zone))
    },

    async create(userId: string, zoneId: string, body: RecordBody): Promise<RecordView> {
      const zone = zones.findRow(userId, zoneId)
      const rec = validateRecord(body, zone.zone, '', zone.mode === 'authoritative')
      admit(zone, rec)
      checkConflicts(ctx.records.byName(zone.id, rec.name), rec)
      return (await insertAll(userId, zone, [rec]))[0] as RecordView
    },

    async update(userId: string, zoneId: string, recordId: string, body: RecordBody): Promise<RecordView> {
      const zone = zones.findRow(userId, zoneId)
      const old = existing(zone, recordId)
      const rec = validateRecord(body, zone.zone, '', zone.mode === 'authoritative')
      admit(zone, rec)
      checkConflicts(ctx.records.byName(zone.id, rec.name), rec, recordId)
      // A record that stops being A/AAAA can no longer follow the IP.
      const ddns = rec.type === 'A' || rec.type === 'AAAA' ? old.ddns : 0
      const row: RecordRow = { ...old, ...rec, proxied: rec.proxied ? 1 : 0, ddns, updated_at: ctx.iso() }
      let newId = recordId
      if (zone.mode === 'proxy') {
        const { driver, pz } = zones.providerOf(zone)
        newId = (await viaProvider(() => driver.updateRecord(pz, recordId, rec))).id
      }
      writeZone(ctx, zone, { update: [{ row, id: newId, previousName: old.name }] })
      const updated = viewRecord({ ...row, id: newId }, zone)
      emit('updated', userId, updated)
      return updated
    },

    async remove(userId: string, zoneId: string, recordId: string) {
      const zone = zones.findRow(userId, zoneId)
      const gone = existing(zone, recordId)
      if (zone.mode === 'proxy') {
        const { driver, pz } = zones.providerOf(zone)
        // Already gone at the provider (deleted from its dashboard): the mirror follows.
        await viaProvider(() => driver.deleteRecord(pz, recordId)).catch((err: unknown) => {
          if (!(err instanceof HttpError && err.code === 'NOT_FOUND')) throw err
        })
      }
      writeZone(ctx, zone, { remove: [gone] })
      emit('deleted', userId, { id: recordId, zone_id: zone.id })
      return { id: recordId, deleted: true as const }
    },

    /** Validates every substituted record first, then writes them all (or none). */
    async insertValidated(userId: string, zoneId: string, bodies: RecordBody[]): Promise<RecordView[]> {
      const zone = zones.findRow(userId, zoneId)
      const recs = bodies.map((b, i) => validateRecord(b, zone.zone, `records[${i}].`, zone.mode === 'authoritative'))
      const seen: Array<Pick<RecordRow, 'id' | 'type' | 'name' | 'content'>> = ctx.records.list(zone.id)
      recs.forEach((rec, i) => {
        admit(zone, rec)
        checkConflicts(seen, rec)
        seen.push({ id: `new-${i}`, type: rec.type, name: rec.name, content: rec.content })
      })
      return insertAll(userId, zone, recs)
    },
  }
}
export type RecordService = ReturnType<typeof recordService>
