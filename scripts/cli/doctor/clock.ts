import { existsSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { databasePath } from '../../../core/db/sqlite.js'
import { runCommand } from '../../../core/hal/command.js'
import type { Finding } from './finding.js'
import { which } from './tools.js'

const SKEW_MS = 5 * 60_000

/**
 * Clock sanity without the network: not before this build was made, not behind the
 * database's last write (a clock that jumped back breaks token expiry, TLS and ordering),
 * and synchronised when timedatectl can tell.
 */
export async function clockFindings(dataDir: string, now = Date.now()): Promise<Finding[]> {
  const out: Finding[] = []
  const built = statSync(fileURLToPath(import.meta.url)).mtimeMs
  const db = databasePath(dataDir)
  const wal = `${db}-wal`
  const lastWrite = Math.max(...[db, wal].filter((f) => existsSync(f)).map((f) => statSync(f).mtimeMs), 0)
  const iso = (ms: number) => new Date(ms).toISOString()
  if (now + SKEW_MS < built)
    out.push({
      check: 'clock',
      status: 'fail',
      message: `the clock says ${iso(now)}, before this Hearth was installed (${iso(built)})`,
      fix: 'set the time (timedatectl set-ntp true, or date -s) and check the RTC battery',
    })
  else if (now + SKEW_MS < lastWrite)
    out.push({
      check: 'clock',
      status: 'fail',
      message: `the clock says ${iso(now)}, before the database's last write (${iso(lastWrite)}): it went back`,
      fix: 'set the time (timedatectl set-ntp true) before starting the daemon',
    })
  else out.push({ check: 'clock', status: 'ok', message: `${iso(now)} (after the install and the last database write)` })

  if (which('timedatectl')) {
    const res = await runCommand('timedatectl', ['show', '-p', 'NTPSynchronized', '--value'], { timeoutMs: 3000 }).catch(() => null)
    const value = res?.code === 0 ? res.stdout.trim() : null
    if (value === 'yes') out.push({ check: 'clock sync', status: 'ok', message: 'synchronised (NTP)' })
    else if (value === 'no')
      out.push({
        check: 'clock sync',
        status: 'warn',
        message: 'not synchronised',
        fix: 'timedatectl set-ntp true (systemd-timesyncd or chrony)',
      })
  }
  return out
}
