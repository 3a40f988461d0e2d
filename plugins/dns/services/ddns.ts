import { randomUUID } from 'node:crypto'
import { isIPv4 } from 'node:net'
import type { ScheduledJob } from '../../../core/plugin-api.js'
import type { RecordRow } from '../store/records.js'
import type { ZoneRow } from '../store/zones.js'
import type { DnsContext } from './context.js'
import { majorityIp } from './public-ip.js'
import { viewRecord } from './records.js'
import { writeZone, type ZoneChange } from './zone-data.js'
import type { ZoneService } from './zones.js'

/**
 * Dynamic DNS: the public IP is an instance-wide fact, checked by the cron job
 * and check-now; when it changes, every DDNS-marked A (IPv4) or AAAA (IPv6)
 * record of every DDNS-enabled zone is rewritten, here or at the provider.
 * Each check is kept 30 days (ip-type); each change is logged with the zones
 * it updated or failed to update. The IP is the instance's; the zones are their
 * owners': every answer shows a user only their own zones and their errors.
 */
export const WINDOW_DAYS = 30

export interface ZoneUpdate {
  zone_id: string
  user_id: string
  zone: string
  records: string[]
  /** Why this zone's records could not be rewritten. */
  error?: string
}

interface InstanceCheck {
  checked_at: string
  ip: string | null
  previous_ip: string | null
  changed: boolean
  zones: ZoneUpdate[]
  /** Why the public IP could not be learned: an instance fact, no zone in it. */
  error: string | null
}

export interface CheckResult {
  checked_at: string
  ip: string | null
  previous_ip: string | null
  changed: boolean
  zones_updated: Array<Omit<ZoneUpdate, 'user_id' | 'error'>>
  error: string | null
}

/** What one user may see of the zones a check or a change touched: their own, and their own errors. */
function scoped(zones: ZoneUpdate[], userId: string, instanceError: string | null) {
  const mine = zones.filter((z) => z.user_id === userId)
  const errors = mine.filter((z) => z.error).map((z) => `${z.zone}: ${z.error}`)
  return {
    zones_updated: mine.filter((z) => !z.error).map((z) => ({ zone_id: z.zone_id, zone: z.zone, records: z.records })),
    error: instanceError ?? (errors.length ? errors.join('; ') : null),
  }
}

export function ddnsService(ctx: DnsContext, zones: ZoneService) {
  let job: ScheduledJob | null = null

  /** Rewrites one zone's DDNS records to `ip`; returns the ids written. */
  const updateZone = async (zone: ZoneRow, ip: string): Promise<string[]> => {
    const type = isIPv4(ip) ? 'A' : 'AAAA'
    const stale = ctx.records.ddnsRecords(zone.id).filter((r) => r.type === type && r.content !== ip)
    const written: RecordRow[] = []
    const updates: NonNullable<ZoneChange['update']> = []
    for (const row of stale) {
      const next = { ...row, content: ip, updated_at: ctx.iso() }
      if (zone.mode === 'proxy') {
        const { driver, pz } = zones.providerOf(zone)
        const record = { type, name: row.name, content: ip, ttl: row.ttl, priority: null, proxied: row.proxied === 1 } as const
        const saved = await driver.updateRecord(pz, row.id, record)
        // Each provider write is mirrored at once: a later one failing must not lose this one.
        writeZone(ctx, zone, { update: [{ row: next, id: saved.id, previousName: row.name }] })
        written.push({ ...next, id: saved.id })
      } else {
        updates.push({ row: next, previousName: row.name })
        written.push(next)
      }
    }
    // Every address of an authoritative zone changes in one transaction, with one serial.
    if (updates.length) writeZone(ctx, zone, { update: updates })
    for (const r of written) ctx.api.events.emit('dns.record.updated', { userId: zone.user_id, id: r.id, data: viewRecord(r, zone) })
    return written.map((r) => r.id)
  }

  const runCheck = async (): Promise<InstanceCheck> => {
    const checked_at = ctx.iso()
    const previous = ctx.ddns.lastGood()?.ip ?? null
    ctx.ddns.prune(ctx.iso(ctx.api.now() - WINDOW_DAYS * 86400_000))
    let ip: string
    try {
      ip = (await majorityIp(ctx.config.publicIpSources, ctx.config.outboundTimeoutMs)).ip
    } catch (err) {
      const error = (err as Error).message
      ctx.ddns.addCheck({ checked_at, ip: null, error })
      return { checked_at, ip: null, previous_ip: previous, changed: false, zones: [], error }
    }
    ctx.ddns.addCheck({ checked_at, ip, error: null })
    if (ip === previous) return { checked_at, ip, previous_ip: previous, changed: false, zones: [], error: null }
    const zones: ZoneUpdate[] = []
    for (const zone of ctx.zones.ddnsZones()) {
      const entry = { zone_id: zone.id, user_id: zone.user_id, zone: zone.zone }
      try {
        const records = await updateZone(zone, ip)
        if (records.length) zones.push({ ...entry, records })
      } catch (err) {
        zones.push({ ...entry, records: [], error: (err as Error).message })
      }
    }
    ctx.ddns.addLog({
      id: randomUUID(),
      previous_ip: previous,
      new_ip: ip,
      detected_at: checked_at,
      zones_updated: JSON.stringify(zones),
      error: null,
    })
    const failed = zones.filter((z) => z.error).length
    if (failed) ctx.api.log.warn({ zones: failed }, 'ddns: some zones could not be updated')
    return { checked_at, ip, previous_ip: previous, changed: true, zones, error: null }
  }

  // The cron job and check-now share one check in flight: never two writers of the same change.
  let inFlight: Promise<InstanceCheck> | null = null
  const check = (): Promise<InstanceCheck> => {
    inFlight ??= runCheck().finally(() => {
      inFlight = null
    })
    return inFlight
  }

  return {
    check,
    /** Check now (the IP is instance-wide, any user may ask); the answer shows only the caller's zones. */
    async checkFor(userId: string): Promise<CheckResult> {
      const { zones, error, ...result } = await check()
      return { ...result, ...scoped(zones, userId, error) }
    },
    attach(scheduled: ScheduledJob) {
      job = scheduled
    },
    status(userId: string) {
      const zonesOn = ctx.zones.userDdnsZones(userId)
      return {
        enabled: zonesOn.length > 0,
        current_ip: ctx.ddns.lastGood()?.ip ?? null,
        last_check_at: ctx.ddns.lastCheck()?.checked_at ?? null,
        last_change_at: ctx.ddns.lastChange()?.detected_at ?? null,
        next_check_at: job?.nextRun()?.toISOString() ?? null,
        zones: zonesOn.map((z) => ({ id: z.id, zone: z.zone, record_ids: ctx.records.ddnsRecords(z.id).map((r) => r.id) })),
      }
    },
    /** IP changes, newest first; each entry shows only the caller's zones. */
    log(userId: string, limit: number) {
      return ctx.ddns.listLog(limit).map((e) => ({
        id: e.id,
        previous_ip: e.previous_ip,
        new_ip: e.new_ip,
        detected_at: e.detected_at,
        // Entries written before errors were kept per zone hold other users' zone names in `error`: never shown.
        ...scoped(JSON.parse(e.zones_updated) as ZoneUpdate[], userId, null),
      }))
    },
    /** static: a day or more of checks in the window and no change; dynamic: a change; unknown: too little history. */
    ipType() {
      const since = ctx.iso(ctx.api.now() - WINDOW_DAYS * 86400_000)
      const changes = ctx.ddns.changesSince(since)
      const first = ctx.ddns.firstGoodSince(since)
      const history = first ? ctx.api.now() - Date.parse(first.checked_at) : 0
      const type: 'static' | 'dynamic' | 'unknown' = changes > 0 ? 'dynamic' : history >= 86400_000 ? 'static' : 'unknown'
      return { type, changes, window_days: WINDOW_DAYS }
    },
  }
}
export type DdnsService = ReturnType<typeof ddnsService>
