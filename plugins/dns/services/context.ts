import type { HearthApi } from '../../../core/plugin-api.js'
import type { DnsConfig } from '../config.js'
import type { DnsServer } from '../server/index.js'
import { type AccountStore, accountStore } from '../store/accounts.js'
import { type DdnsStore, ddnsStore } from '../store/ddns.js'
import { type RecordStore, recordStore } from '../store/records.js'
import { type ZoneStore, zoneStore } from '../store/zones.js'

/** What every DNS service shares: the plugin API, its config, the stores and the server. */
export interface DnsContext {
  api: HearthApi
  config: DnsConfig
  zones: ZoneStore
  records: RecordStore
  accounts: AccountStore
  ddns: DdnsStore
  server: DnsServer
  /** ACME DNS-01 TXT values served beside the stored records, by owner name (challenges.ts). */
  challenges: Map<string, string[]>
  /** ISO time from the injectable clock. */
  iso(ms?: number): string
  transaction<T>(fn: () => T): T
}

export function createContext(api: HearthApi, config: DnsConfig, server: DnsServer): DnsContext {
  return {
    api,
    config,
    server,
    challenges: new Map(),
    zones: zoneStore(api.db),
    records: recordStore(api.db),
    accounts: accountStore(api.db),
    ddns: ddnsStore(api.db),
    iso: (ms) => new Date(ms ?? api.now()).toISOString(),
    transaction: (fn) => api.db.transaction(fn)(),
  }
}
