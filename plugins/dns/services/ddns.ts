import { randomUUID } from 'node:crypto'
import { isIPv4 } from 'node:net'
import type { ScheduledJob } from '../../../core/plugin-api.js'
import type { RecordRow } from '../store/records.js'
import type { ZoneRow } from '../store/zones.js'
import type { DnsContext } from './context.js'
import { majorityIp } from './public-ip.js'
import { viewRecord } from './records.js'
import { bumpSerial, publish } from './zone-data.js'
import type { ZoneService } from './zones.js'

/**
 * Dynamic DNS: the public IP is an instance-wide fact, checked by the cron job
 * and check-now; when it changes, every DDNS-marked A (IPv4) or AAAA (IPv6)
 * record of every DDNS-enabled zone is rewritten, here or at the provider.
 * Each check is kept 30 days (ip-type); each change is logged with the zones
 * it updated.
 */
export const WINDOW_DAYS = 30

export interface ZoneUpdate {
  zone_id: string
  user_id: string
  zone: string
  records: string[]
}

export interface CheckResult {
  checked_at: string
  ip: string | null
  previous_ip: string | null
  changed: boolean
  zones_updated: Array<Omit<ZoneUpdate, 'user_id'>>
  error: string | null
}

export function ddnsService(ctx: DnsContext, zones: ZoneService) {
  let job: ScheduledJob | null = null

  /** Rewrites one zone's DDNS records to `ip`; returns the ids written. */
  const updateZone = async (zone: ZoneRow, ip: string): Promise<string[]> => {
    const type = isIPv4(ip) ? 'A' : 'AAAA'
    const stale = ctx.records.ddnsRecords(zone.id).filter((r) => r.type === type && r.content !== ip)
    const written: RecordRow[] = []
    for (const row of stale) {
      const next = { ...row, content: ip, updated_at: ctx.iso() }
      if (zone.mode === 'proxy') {
        const { driver, pz } = zones.providerOf(zone)
        const record = { type, name: row.name, content: ip, ttl: row.ttl, priority: null, proxied: row.proxied === 1 } as const
        const saved = await driver.updateRecord(pz, row.id, record)
        ctx.records.update(next, saved.id)
        written.push({ ...next, id: saved.id })
      } else {
        ctx.records.update(next)
        written.push(next)
      }
    }
    if (written.length && zone.mode === 'authoritative') {
      ctx.transaction(() => bumpSerial(ctx, zone))
      publish(ctx, zone)
    }
    for (const r of written) ctx.api.events.emit('dns.record.updated', { userId: zone.user_id, id: r.id, data: viewRecord(r, zone) })
    return written.map((r) => r.id)
  }

  const runCheck = async (): Promise<CheckResult> => {
    const checked_at = ctx.iso()
    const previous = ctx.ddns.lastGood()?.ip ?? null
    ctx.ddns.prune(ctx.iso(ctx.api.now() - WINDOW_DAYS * 86400_000))
    let ip: string
    try {
      ip = (await majorityIp(ctx.config.publicIpSources, ctx.config.outboundTimeoutMs)).ip
    } catch (err) {
      const error = (err as Error).message
      ctx.ddns.addCheck({ checked_at, ip: null, error })
      return { checked_at, ip: null, previous_ip: previous, changed: false, zones_updated: [], error }
    }
    ctx.ddns.addCheck({ checked_at, ip, error: null })
    if (ip === previous) return { checked_at, ip, previous_ip: previous, changed: false, zones_updated: [], error: null }
    const updates: ZoneUpdate[] = []
    const failures: string[] = []
    for (const zone of ctx.zones.ddnsZones()) {
      try {
        const records = await updateZone(zone, ip)
        if (records.length) updates.push({ zone_id: zone.id, user_id: zone.user_id, zone: zone.zone, records })
      } catch (err) {
        failures.push(`${zone.zone}: ${(err as Error).message}`)
      }
    }
    const error = failures.length ? failures.join('; ') : null
    ctx.ddns.addLog({
      id: randomUUID(),
      previous_ip: previous,
      new_ip: ip,
      detected_at: checked_at,
      zones_updated: JSON.stringify(updates),
      error,
    })
    if (error) ctx.api.log.warn({ error }, 'ddns: some records could not be updated')
    return { checked_at, ip, previous_ip: previous, changed: true, zones_updated: updates.map(({ user_id: _u, ...z }) => z), error }
  }

  // The cron job and check-now share one check in flight: never two writers of the same change.
  let inFlight: Promise<CheckResult> | null = null
  const check = (): Promise<CheckResult> => {
    inFlight ??= runCheck().finally(() => {
      inFlight = null
    })
    return inFlight
  }

  return {
    check,
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
        zones_updated: (JSON.parse(e.zones_updated) as ZoneUpdate[]).filter((z) => z.user_id === userId).map(({ user_id: _u, ...z }) => z),
        error: e.error,
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
