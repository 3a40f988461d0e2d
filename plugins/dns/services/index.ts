import { type AccountService, accountService } from './accounts.js'
import type { DnsContext } from './context.js'
import { type DdnsService, ddnsService } from './ddns.js'
import { type Diagnostics, diagnostics } from './diagnostics.js'
import { type NsVerifier, nsVerifier } from './ns-verify.js'
import { type RecordService, recordService } from './records.js'
import { type ZoneHooks, type ZoneService, zoneService } from './zones.js'

/** Every DNS service, wired once by the plugin and handed to the routes. */
export interface DnsServices {
  ctx: DnsContext
  accounts: AccountService
  zones: ZoneService
  records: RecordService
  ddns: DdnsService
  ns: NsVerifier
  diagnostics: Diagnostics
}

export function createServices(ctx: DnsContext, hooks: ZoneHooks): DnsServices {
  const accounts = accountService(ctx)
  const zones = zoneService(ctx, accounts, hooks)
  return {
    ctx,
    accounts,
    zones,
    records: recordService(ctx, zones),
    ddns: ddnsService(ctx, zones),
    ns: nsVerifier(ctx),
    diagnostics: diagnostics(ctx),
  }
}
