import { randomUUID } from 'node:crypto'
import { isIPv4 } from 'node:net'
import { HttpError } from '../../../core/plugin-api.js'
import type { ProviderZone } from '../../../drivers/dns-providers/index.js'
import type { RecordRow } from '../store/records.js'
import type { ZoneRow, ZoneWithCount } from '../store/zones.js'
import type { AccountService } from './accounts.js'
import type { DnsContext } from './context.js'
import { firewall } from './firewall.js'
import { driverFor, serialisedWrites, viaProvider } from './providers.js'
import { mirrorRows } from './records.js'
import { invalid, normalizeZoneName } from './validate.js'
import { nextSerial, publish, soaContent, storeRecords } from './zone-data.js'

/** Zones: authoritative ones live in the built-in server, proxy ones mirror a provider's zone. */

export interface ZoneView {
  id: string
  zone: string
  mode: 'authoritative' | 'proxy'
  provider_account_id: string | null
  ns_verified: boolean
  propagation_status: ZoneRow['propagation_status']
  ddns_enabled: boolean
  ddns_record_ids: string[]
  records_count: number
  created_at: string
  updated_at: string
}

export interface ZoneHooks {
  /** Called when an authoritative zone appears: NS-verification polling must run. */
  onAuthoritativeCreated(): void
}

export function zoneService(ctx: DnsContext, accounts: AccountService, hooks: ZoneHooks) {
  const fw = firewall(ctx)

  const view = (z: ZoneWithCount): ZoneView => ({
    id: z.id,
    zone: z.zone,
    mode: z.mode,
    provider_account_id: z.provider_account_id,
    ns_verified: z.propagation_status === 'verified',
    propagation_status: z.propagation_status,
    ddns_enabled: z.ddns_enabled === 1,
    ddns_record_ids: ctx.records.ddnsRecords(z.id).map((r) => r.id),
    records_count: z.records_count,
    created_at: z.created_at,
    updated_at: z.updated_at,
  })

  /** The caller's zone for a record operation: no count. */
  const findRow = (userId: string, id: string): ZoneRow => {
    const zone = ctx.zones.row(userId, id)
    if (!zone) throw new HttpError('NOT_FOUND', 'Zone not found')
    return zone
  }

  const find = (userId: string, id: string): ZoneWithCount => {
    const zone = ctx.zones.get(userId, id)
    if (!zone) throw new HttpError('NOT_FOUND', 'Zone not found')
    return zone
  }

  const emit = <D extends { id: string }>(type: string, userId: string, data: D) =>
    ctx.api.events.emit(`dns.zone.${type}`, { userId, id: data.id, data })

  /** The provider zone a proxy zone stands for, and a driver for it. */
  const providerOf = (zone: ZoneRow) => {
    const account = ctx.accounts.get(zone.user_id, zone.provider_account_id as string)
    if (!account) throw new HttpError('UNPROCESSABLE', 'The provider account of this zone no longer exists')
    const pz = { id: zone.provider_zone_id ?? zone.zone, name: zone.zone } as ProviderZone
    return { driver: serialisedWrites(driverFor(ctx, account), `${account.id}/${zone.zone}`), pz }
  }

  /** A new zone row; the serial only matters to authoritative zones. */
  const newRow = (userId: string, name: string, mode: ZoneRow['mode'], provider: { account: string; zone: string } | null) => {
    const at = ctx.iso()
    return {
      id: randomUUID(),
      user_id: userId,
      zone: name,
      mode,
      provider_account_id: provider?.account ?? null,
      provider_zone_id: provider?.zone ?? null,
      serial: mode === 'authoritative' ? nextSerial(ctx, 0) : 1,
      created_at: at,
      updated_at: at,
    }
  }

  /**
   * docs/api.md: no zone may be the parent or child of another user's zone. The server answers from
   * the most specific zone, so a child would let its owner serve the parent's names (its glue, its
   * mail) and a parent would catch every name the child's owner does not hold.
   */
  const refuseTakeover = (name: string, userId: string): void => {
    for (let suffix = name.slice(name.indexOf('.') + 1); suffix.includes('.'); suffix = suffix.slice(suffix.indexOf('.') + 1)) {
      const parent = ctx.zones.byName(suffix)
      if (parent && parent.user_id !== userId) throw new HttpError('CONFLICT', `${name} lies inside a zone another user serves`)
    }
    if (ctx.zones.foreignChild(name, userId)) throw new HttpError('CONFLICT', `${name} contains a zone another user serves`)
  }

  /** Inserts the zone and its first records in one transaction; a name taken meanwhile → 409. */
  const insertZone = (row: ReturnType<typeof newRow>, fill: () => void): ZoneRow => {
    ctx.transaction(() => {
      if (ctx.zones.byName(row.zone)) throw new HttpError('CONFLICT', `Zone ${row.zone} already exists`)
      refuseTakeover(row.zone, row.user_id)
      ctx.zones.insert(row)
      fill()
    })
    return ctx.zones.byName(row.zone) as ZoneRow
  }

  const createAuthoritative = (userId: string, name: string): ZoneRow => {
    const row = newRow(userId, name, 'authoritative', null)
    const nameservers = ctx.config.nameservers.length
      ? ctx.config.nameservers.map((n) => n.toLowerCase().replace(/\.$/, ''))
      : [`ns1.${name}`]
    const base = {
      zone_id: row.id,
      user_id: userId,
      name: '@',
      ttl: 3600,
      priority: null,
      proxied: 0,
      ddns: 0,
      created_at: row.created_at,
      updated_at: row.created_at,
    }
    return insertZone(row, () => {
      const rows: RecordRow[] = [{ ...base, id: randomUUID(), type: 'SOA', content: soaContent(name, nameservers) }]
      for (const ns of nameservers) rows.push({ ...base, id: randomUUID(), type: 'NS', content: ns })
      // Glue for the default in-zone name server when the public IP is known; marked for DDNS
      // so that enabling DDNS on the zone keeps it current.
      const ip = ctx.ddns.lastGood()?.ip
      if (!ctx.config.nameservers.length && ip && isIPv4(ip))
        rows.push({ ...base, id: randomUUID(), type: 'A', name: 'ns1', content: ip, ddns: 1 })
      // The new zone's first serial stays as created; the caller publishes the whole zone.
      storeRecords(ctx, row, { insert: rows })
    })
  }

  const createProxy = async (userId: string, name: string, accountId: string): Promise<ZoneRow> => {
    const account = ctx.accounts.get(userId, accountId)
    if (!account) {
      throw new HttpError('UNPROCESSABLE', 'provider_account_id does not name one of your provider accounts', {
        field: 'provider_account_id',
      })
    }
    const driver = driverFor(ctx, account)
    const remote = (await viaProvider(() => driver.listZones())).find((z) => z.name === name)
    ctx.accounts.setTested(account.id, true, ctx.iso())
    if (!remote) throw new HttpError('UNPROCESSABLE', `Zone ${name} is not in this ${account.provider} account`)
    const records = await viaProvider(() => driver.listRecords(remote))
    const row = newRow(userId, name, 'proxy', { account: account.id, zone: remote.id })
    return insertZone(row, () => ctx.records.replaceMirror(row.id, mirrorRows(ctx, row, records)))
  }

  return {
    find,
    findRow,
    view,
    providerOf,
    list: (userId: string) => ctx.zones.list(userId).map(view),
    get: (userId: string, id: string) => view(find(userId, id)),

    async create(userId: string, body: { zone: string; mode: 'authoritative' | 'proxy'; provider_account_id?: string }): Promise<ZoneView> {
      const name = normalizeZoneName(body.zone)
      if (body.mode === 'proxy' && !body.provider_account_id)
        throw invalid('provider_account_id', 'required', 'provider_account_id is required for proxy zones')
      if (body.mode === 'authoritative' && body.provider_account_id)
        throw invalid('provider_account_id', 'not_allowed', 'authoritative zones take no provider account')
      if (ctx.zones.byName(name)) throw new HttpError('CONFLICT', `Zone ${name} already exists`)
      refuseTakeover(name, userId)
      const row =
        body.mode === 'authoritative'
          ? createAuthoritative(userId, name)
          : await createProxy(userId, name, body.provider_account_id as string)
      if (row.mode === 'authoritative') {
        publish(ctx, row)
        await fw.afterCreate()
        hooks.onAuthoritativeCreated()
      }
      const created = view(find(userId, row.id))
      emit('created', userId, created)
      return created
    },

    async remove(userId: string, id: string) {
      const zone = find(userId, id)
      ctx.zones.remove(userId, id)
      if (zone.mode === 'authoritative') {
        ctx.server.removeZone(zone.zone)
        await fw.afterDelete()
      }
      emit('deleted', userId, { id, zone: zone.zone })
      return { id, deleted: true as const }
    },

    /** Re-imports a proxy zone's records from its provider. */
    async sync(userId: string, id: string): Promise<ZoneView> {
      const zone = find(userId, id)
      if (zone.mode !== 'proxy') throw new HttpError('UNPROCESSABLE', 'Only proxy zones sync from a provider; this zone is authoritative')
      const { driver, pz } = providerOf(zone)
      const records = await viaProvider(() => driver.listRecords(pz))
      ctx.records.replaceMirror(zone.id, mirrorRows(ctx, zone, records))
      const synced = view(find(userId, id))
      emit('updated', userId, synced)
      return synced
    },

    setDdns(userId: string, id: string, body: { ddns_enabled: boolean; ddns_record_ids?: string[] }): ZoneView {
      const zone = find(userId, id)
      const ids = body.ddns_record_ids ?? ctx.records.ddnsRecords(zone.id).map((r) => r.id)
      const rows = ids.map((rid) => ctx.records.get(zone.id, rid))
      const bad = ids.find((rid, i) => !rows[i] || !['A', 'AAAA'].includes((rows[i] as RecordRow).type))
      if (bad !== undefined)
        throw new HttpError('UNPROCESSABLE', `ddns_record_ids: ${bad} is not an A or AAAA record of this zone`, {
          field: 'ddns_record_ids',
        })
      ctx.transaction(() => {
        ctx.zones.setDdns(zone.id, body.ddns_enabled, ctx.iso())
        ctx.records.setDdns(zone.id, [...new Set(ids)])
      })
      const updated = view(find(userId, id))
      emit('updated', userId, updated)
      return updated
    },
  }
}
export type ZoneService = ReturnType<typeof zoneService>
