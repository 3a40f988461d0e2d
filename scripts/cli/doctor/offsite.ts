import { type ConfigSources, readSlice } from '../../../core/config.js'
import { OffsiteConfig } from '../../../plugins/offsite/config.js'
import { offsitePaths } from '../../../plugins/offsite/paths.js'
import { createStatusStore, type Outcome } from '../../../plugins/offsite/status-store.js'
import type { Finding } from './finding.js'

const DAY = 86_400_000
const GUIDE = 'docs/operations.md, "Off-site protection"'

/**
 * Off-site protection as the status file records it: configured or not, and the last run, check
 * and drill; an outcome that failed fails, one that is overdue (a run older than two days, a check
 * older than two weeks, a drill older than two months) or never happened warns.
 */
export function offsiteFindings(sources: ConfigSources, dataDir: string, now = Date.now()): Finding[] {
  const cfg = readSlice(OffsiteConfig, sources, 'offsite')
  if (!cfg.repository)
    return [
      {
        check: 'off-site',
        status: 'warn',
        message: 'no off-site copy: a fire or a theft takes the local backups with the data',
        fix: `set HEARTH_OFFSITE_REPOSITORY to a restic repository away from this box (${GUIDE})`,
      },
    ]
  const status = createStatusStore(offsitePaths(dataDir).status).read()
  const judge = (check: string, o: Outcome, maxDays: number, fix: string): Finding => {
    if (o.ok === false) return { check, status: 'fail', message: `failed at ${o.last_at}: ${o.error}`, fix }
    if (!o.last_at) return { check, status: 'warn', message: 'never ran', fix }
    if (now - Date.parse(o.last_at) > maxDays * DAY) return { check, status: 'warn', message: `last passed at ${o.last_at}`, fix }
    return { check, status: 'ok', message: `passed at ${o.last_at}` }
  }
  const findings = [
    judge('off-site run', status.offsite, 2, `hearth offsite run; the daemon runs it on HEARTH_OFFSITE_CRON (${GUIDE})`),
    judge('off-site check', status.check, 14, 'hearth offsite check'),
    judge('off-site drill', status.drill, 62, 'hearth offsite drill'),
  ]
  findings.push(
    status.kit_shown_at
      ? { check: 'off-site kit', status: 'ok', message: `shown at ${status.kit_shown_at}` }
      : {
          check: 'off-site kit',
          status: 'warn',
          message: 'the emergency kit (repository and password) was never printed',
          fix: `hearth offsite kit, and keep it away from this box (${GUIDE})`,
        },
  )
  return findings
}
