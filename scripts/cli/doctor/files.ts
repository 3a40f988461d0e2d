import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { envFilePath } from '../../../core/config.js'
import { databasePath } from '../../../core/db/sqlite.js'
import type { Finding } from './finding.js'

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0')

/** The data folder, the database and hearth.env: present, writable, and not readable by others. */
export function fileFindings(dataDir: string): Finding[] {
  const out: Finding[] = []
  if (!existsSync(dataDir)) {
    out.push({
      check: 'data folder',
      status: 'warn',
      message: `${dataDir} does not exist yet`,
      fix: 'start the daemon once or run `hearth setup` (it is created with mode 0700)',
    })
    return out
  }
  const dir = statSync(dataDir)
  try {
    accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK)
    // Group access is the Debian package's choice (0750 for the hearth group); other users never.
    if (dir.mode & 0o007)
      out.push({
        check: 'data folder',
        status: 'warn',
        message: `${dataDir} is mode ${octal(dir.mode)}: other users can look inside`,
        fix: `chmod o-rwx ${dataDir}`,
      })
    else out.push({ check: 'data folder', status: 'ok', message: `${dataDir} (mode ${octal(dir.mode)}, owner uid ${dir.uid})` })
  } catch {
    out.push({
      check: 'data folder',
      status: 'fail',
      message: `${dataDir} is not writable by this user (uid ${process.getuid?.()}; the folder's owner is uid ${dir.uid})`,
      fix: `run as the daemon's user (sudo -u hearth hearth doctor), or chown -R <daemon user> ${dataDir}`,
    })
  }
  const env = envFilePath(dataDir)
  if (!existsSync(env))
    out.push({
      check: 'hearth.env',
      status: 'warn',
      message: `${env} does not exist yet`,
      fix: 'start the daemon once: it generates the secrets',
    })
  else {
    const mode = statSync(env).mode & 0o777
    out.push(
      mode === 0o600
        ? { check: 'hearth.env', status: 'ok', message: `${env} (mode 0600)` }
        : { check: 'hearth.env', status: 'fail', message: `${env} is mode ${octal(mode)}: it holds the secrets`, fix: `chmod 600 ${env}` },
    )
  }
  const db = databasePath(dataDir)
  if (existsSync(db)) {
    try {
      accessSync(db, constants.R_OK | constants.W_OK)
      out.push({ check: 'database', status: 'ok', message: `${db} (${statSync(db).size} bytes)` })
    } catch {
      out.push({
        check: 'database',
        status: 'fail',
        message: `${db} is not readable and writable by this user`,
        fix: `chown <daemon user> ${db}*`,
      })
    }
  }
  return out
}
