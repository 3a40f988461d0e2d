import { maskUrlCredentials } from '../../lib/url-credentials.js'
import type { ScheduledBackup } from '../backups/public.js'
import type { OffsiteStatus } from './status-store.js'

export interface ProtectionInput {
  status: OffsiteStatus
  /** Scheduled local backups, newest first. */
  local: ScheduledBackup[]
  repository: string
}

/**
 * How protected the household's data is: each copy's last outcome, a score counting the copies that
 * exist and are verified (the data itself, a local backup, an off-site copy whose last drill passed
 * and whose repository is not known damaged), and the one thing to do next.
 */
export function protectionStatus({ status, local, repository }: ProtectionInput) {
  const newest = local[0]
  const localOutcome = {
    last_at: newest?.created_at ?? null,
    ok: newest ? true : null,
    error: null as string | null,
    count: local.length,
  }
  const offsite = {
    last_at: status.offsite.last_at,
    ok: status.offsite.ok,
    error: status.offsite.error,
    repository: repository ? maskUrlCredentials(repository) : null,
    snapshot_id: status.offsite.snapshot_id ?? null,
    size_bytes: status.offsite.size_bytes ?? null,
  }
  const check = { last_at: status.check.last_at, ok: status.check.ok, error: status.check.error }
  const drill = {
    last_at: status.drill.last_at,
    ok: status.drill.ok,
    error: status.drill.error,
    snapshot_id: status.drill.snapshot_id ?? null,
  }
  const offsiteVerified = Boolean(repository) && offsite.ok === true && drill.ok === true && check.ok !== false
  const score = 1 + (localOutcome.ok ? 1 : 0) + (offsiteVerified ? 1 : 0)
  return { local: localOutcome, offsite, check, drill, kit_confirmed: status.kit_shown_at !== null, score, advice: advice() }

  function advice(): string {
    if (!repository)
      return 'Set HEARTH_OFFSITE_REPOSITORY to a restic repository away from this box (a friend’s box over SFTP, a storage box): a fire or a theft takes the local backups with the data.'
    if (offsite.ok === false) return `The last off-site run failed (${offsite.error}): fix it, then run \`hearth offsite run\`.`
    if (check.ok === false)
      return `The last check found the repository damaged (${check.error}): run \`hearth offsite check\` again; if it still fails, start a new repository and run \`hearth offsite run\`.`
    if (drill.ok === false)
      return `The last restore drill failed (${drill.error}): run \`hearth offsite run\`, then \`hearth offsite drill\`.`
    if (offsite.ok === null) return 'Send the first off-site snapshot: `hearth offsite run` (or wait for HEARTH_OFFSITE_CRON).'
    if (drill.ok === null) return 'Prove the off-site copy restores: `hearth offsite drill`.'
    if (!status.kit_shown_at)
      return 'Print the emergency kit (`hearth offsite kit`) and keep it away from this box: without its password the off-site copy cannot be read.'
    if (!localOutcome.ok)
      return 'Schedule local backups too (HEARTH_BACKUP_CRON, on another disk): they restore faster than the off-site copy.'
    return 'Nothing to do: the data, a local backup and a verified off-site copy exist.'
  }
}
