import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { defaults } from '../../config/defaults.js'
import { parseEnvFile } from '../../core/config.js'
import { liveDaemon } from '../../core/daemon-state.js'
import { unitEnvironment } from '../../lib/systemd-unit.js'

/** The settings the daemon of a data folder runs with, and where they were read. */
export interface DaemonSettings {
  env: NodeJS.ProcessEnv
  from: string
}

/** The unit the package installs, unless a full copy in /etc overrides it (as systemd picks). */
const UNIT_PLACES = ['/etc/systemd/system/hearth.service', '/lib/systemd/system/hearth.service', '/usr/lib/systemd/system/hearth.service']
/** systemd's PATH for services. */
const SERVICE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin'

/** The environment the running process `pid` was started with; null when it cannot be read (another user's). */
function processEnvironment(pid: number): NodeJS.ProcessEnv | null {
  let raw: string
  try {
    raw = readFileSync(`/proc/${pid}/environ`, 'utf8')
  } catch {
    return null
  }
  const env: NodeJS.ProcessEnv = {}
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=')
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1)
  }
  return env
}

/** The environment systemd would give the unit's process (its drop-ins in /etc/systemd/system/<unit>.d/ included). */
function unitSettings(unitFile: string): { env: NodeJS.ProcessEnv; files: string[] } {
  const dropins = join('/etc/systemd/system', 'hearth.service.d')
  const extra = existsSync(dropins)
    ? readdirSync(dropins)
        .filter((f) => f.endsWith('.conf'))
        .sort()
        .map((f) => join(dropins, f))
    : []
  const { environment, environmentFiles } = unitEnvironment([unitFile, ...extra].map((f) => readFileSync(f, 'utf8')))
  const env: NodeJS.ProcessEnv = { PATH: SERVICE_PATH, ...environment }
  const files = [unitFile, ...extra]
  for (const { path, optional } of environmentFiles) {
    if (!existsSync(path) && optional) continue
    Object.assign(env, parseEnvFile(readFileSync(path, 'utf8')))
    files.push(path)
  }
  return { env, files }
}

/**
 * What the daemon of this shell's data folder uses: the running daemon's own environment when it
 * runs (read from /proc); else the hearth unit's (Environment=, EnvironmentFile=) when that unit serves
 * this data folder; else this shell's. The daemon adds <data>/hearth.env itself, as the CLI does.
 * HEARTH_UNIT_FILE names another unit file (a test's, or a unit installed elsewhere).
 */
export function daemonSettings(env: NodeJS.ProcessEnv): DaemonSettings {
  const dataDir = resolve(env.HEARTH_DATA_DIR || defaults.HEARTH_DATA_DIR)
  const daemon = liveDaemon(dataDir)
  const running = daemon ? processEnvironment(daemon.pid) : null
  if (daemon && running)
    return { env: { ...running, HEARTH_DATA_DIR: dataDir }, from: `the running daemon's environment (pid ${daemon.pid})` }
  const unitFile = env.HEARTH_UNIT_FILE || UNIT_PLACES.find((f) => existsSync(f))
  if (unitFile && existsSync(unitFile)) {
    const unit = unitSettings(unitFile)
    if (resolve(unit.env.HEARTH_DATA_DIR || defaults.HEARTH_DATA_DIR) === dataDir)
      return {
        env: unit.env,
        from: `the unit's settings (${unit.files.join(', ')})${daemon ? `: the running daemon's (pid ${daemon.pid}) cannot be read by this user` : ''}`,
      }
  }
  return { env, from: "this shell's environment (no running daemon and no hearth unit for this data folder)" }
}
