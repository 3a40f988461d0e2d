import { existsSync, mkdirSync, readFileSync, readdirSync, statfsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { type DriverContext, defineDriver, ToolMissingError } from '../../../core/plugin-api.js'
import { withoutSecrets } from '../../../lib/url-credentials.js'
import { type OffsiteCall, type OffsiteDriver, OffsiteError, SNAPSHOT_REF } from '../driver.js'
import { countRemoved, parseLine, toProgress, toSnapshots, toSummary } from './messages.js'
import { failure, runRestic } from './run.js'
import { sftpCommand, sftpRepositoryProblem, sftpTarget } from './sftp.js'

export { sftpRepositoryProblem }

/** What the owning plugin hands the driver (ctx.settings). */
export interface ResticSettings {
  bin: string
  repository: string
  password: string
  /** The SSH key for SFTP repositories (created by sshKey()); its known_hosts sits beside it. */
  keyFile: string
  cacheDir: string
}

const MAX_JSON = 32 * 1024 * 1024
/** Below this much room a local target counts as full. */
const FULL_BELOW = 1024 * 1024

/**
 * Whether a repository on a local disk (a path, or `local:<path>`) has no room left: restic can hit a
 * full disk and then crash without saying so (a nil-pointer panic seen in CI), so the disk is asked.
 */
function localTargetFull(repository: string): boolean {
  const path = repository.startsWith('local:') ? repository.slice('local:'.length) : repository
  if (!path.startsWith('/')) return false
  try {
    const fs = statfsSync(existsSync(path) ? path : dirname(path))
    return fs.bavail * fs.bsize < FULL_BELOW
  } catch {
    return false
  }
}

function createRestic(ctx: DriverContext): OffsiteDriver {
  const s = ctx.settings as unknown as ResticSettings
  const knownHosts = join(dirname(s.keyFile), 'known_hosts')
  const global = (): string[] => {
    if (!s.repository) throw new OffsiteError('no repository is configured (HEARTH_OFFSITE_REPOSITORY)', 'failed')
    if (!s.password) throw new OffsiteError('no repository password (HEARTH_OFFSITE_PASSWORD)', 'failed')
    const refused = sftpRepositoryProblem(s.repository)
    if (refused) throw new OffsiteError(`HEARTH_OFFSITE_REPOSITORY: ${refused}`, 'failed')
    const args = ['--repo', s.repository, '--cache-dir', s.cacheDir]
    const sftp = sftpTarget(s.repository)
    if (sftp) {
      if (!existsSync(s.keyFile)) throw new OffsiteError('no SSH key yet for this SFTP repository: run `hearth offsite key`', 'unreachable')
      args.push('-o', `sftp.command=${sftpCommand(sftp, s.keyFile, knownHosts)}`)
    }
    return args
  }
  const restic = (args: string[], call: OffsiteCall = {}, extra: { cwd?: string; onLine?: (l: string) => void; collect?: number } = {}) =>
    runRestic({ bin: s.bin, args: [...global(), ...args], password: s.password, signal: call.signal, ...extra })

  /**
   * Runs a command needing the repository's exclusive lock (check, prune). A lock left by a restic
   * that was killed (its daemon killed mid-run) blocks it: then `unlock`, which removes only stale
   * locks (their process gone from this host, or older than 30 minutes), and one more try.
   */
  const unlockingRetry = async (args: string[], call?: OffsiteCall, extra?: Parameters<typeof restic>[2]) => {
    const exit = await restic(args, call, extra)
    if (exit.code === 0 || !exit.tail.some((l) => /already locked|unlock. command can be used/i.test(l))) return exit
    await restic(['unlock'], call)
    return restic(args, call, extra)
  }

  const ok = async (what: string, args: string[], call?: OffsiteCall, extra?: Parameters<typeof restic>[2]) => {
    const exit = await restic(args, call, extra)
    if (exit.code === 0) return exit
    const failed = failure(what, exit)
    if (failed.kind !== 'failed' || !localTargetFull(s.repository)) throw failed
    throw failure(what, { ...exit, tail: ['no space left on device: the target has less than 1 MiB free', ...exit.tail] })
  }

  return {
    async init(call) {
      const probe = await restic(['cat', 'config'], call, { collect: 64 * 1024 })
      if (probe.code === 0) return 'exists'
      const kind = failure('cat config', probe).kind
      if (kind === 'wrong-password')
        throw new OffsiteError(
          `a repository already exists at ${withoutSecrets(s.repository, [s.password])} and this password does not open it (someone else's, or another password): it is left untouched`,
          'wrong-password',
        )
      if (kind !== 'not-a-repository') throw failure('cat config', probe)
      await ok('init', ['init'], call)
      return 'created'
    },

    async backup({ cwd, paths, tags }, call) {
      let summary: ReturnType<typeof toSummary> = null
      const onLine = (line: string) => {
        const m = parseLine(line)
        if (!m) return
        const p = toProgress(m, 'backup')
        if (p) call?.onProgress?.(p)
        summary = toSummary(m) ?? summary
      }
      const args = ['backup', '--json', '--host', 'hearth', ...tags.flatMap((t) => ['--tag', t]), '--', ...paths]
      await ok('backup', args, call, { cwd, onLine })
      if (!summary) throw new OffsiteError('restic backup ended without a summary', 'failed')
      return summary
    },

    async snapshots(opts = {}, call) {
      const exit = await ok('snapshots', ['snapshots', '--json', ...(opts.tag ? ['--tag', opts.tag] : [])], call, { collect: MAX_JSON })
      return toSnapshots(exit.stdout)
    },

    async forget(keep, { tag }, call) {
      const rules = Object.entries(keep).flatMap(([period, n]) => [`--keep-${period}`, String(n)])
      if (!rules.length) return { removed: 0 }
      const args = ['forget', '--json', '--prune', '--tag', tag, '--group-by', 'host', ...rules]
      const exit = await unlockingRetry(args, call, { collect: MAX_JSON })
      if (exit.code !== 0) throw failure('forget', exit)
      return { removed: countRemoved(exit.stdout) }
    },

    async check({ readDataPercent }, call) {
      const args = ['check']
      if (readDataPercent >= 100) args.push('--read-data')
      else if (readDataPercent > 0) args.push(`--read-data-subset=${readDataPercent}%`)
      call?.onProgress?.({ operation: 'check', fraction: 0, bytes_done: 0, bytes_total: 0, files_done: 0, files_total: 0 })
      const exit = await unlockingRetry(args, call)
      call?.onProgress?.({ operation: 'check', fraction: 1, bytes_done: 0, bytes_total: 0, files_done: 0, files_total: 0 })
      if (exit.code === 0) return { ok: true, errors: [] }
      const f = failure('check', exit)
      if (f.kind === 'wrong-password' || f.kind === 'unreachable' || f.kind === 'not-a-repository') throw f
      const errors = exit.tail.filter((l) => /error|Fatal|invalid|fail|does not match|corrupt/i.test(l)).slice(-10)
      return { ok: false, errors: errors.length ? errors : [f.message] }
    },

    async restore(snapshot, target, call) {
      if (!SNAPSHOT_REF.test(snapshot)) throw new OffsiteError(`"${snapshot}" is not a snapshot id`, 'failed')
      if (existsSync(target) && readdirSync(target).length) throw new OffsiteError(`${target} is not empty`, 'failed')
      mkdirSync(target, { recursive: true, mode: 0o700 })
      call?.onProgress?.({ operation: 'restore', fraction: 0, bytes_done: 0, bytes_total: 0, files_done: 0, files_total: 0 })
      // --verify reads every restored file back against the snapshot's hashes.
      await ok('restore', ['restore', '--target', target, '--verify', '--', snapshot], call)
      call?.onProgress?.({ operation: 'restore', fraction: 1, bytes_done: 0, bytes_total: 0, files_done: 0, files_total: 0 })
    },

    async sshKey() {
      const pub = `${s.keyFile}.pub`
      if (!existsSync(s.keyFile)) {
        mkdirSync(dirname(s.keyFile), { recursive: true, mode: 0o700 })
        let res
        try {
          res = await ctx.run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'hearth-offsite', '-f', s.keyFile], {
            timeoutMs: 30_000,
          })
        } catch (err) {
          if (err instanceof ToolMissingError)
            throw new OffsiteError('ssh-keygen is not installed (Debian: apt install openssh-client)', 'missing-tool')
          throw err
        }
        if (res.code !== 0) throw new OffsiteError(`ssh-keygen failed: ${res.stderr.trim().split('\n').pop() ?? `exit ${res.code}`}`)
      }
      return readFileSync(pub, 'utf8').trim()
    },
  }
}

/** restic (Debian's package) as the `offsite` HAL kind. */
export default defineDriver<OffsiteDriver>({
  manifest: {
    name: 'restic',
    kind: 'offsite',
    priority: 10,
    capabilities: ['canBackup', 'canRestore', 'canCheck', 'canForget', 'canSftp'],
    description: 'restic: encrypted, deduplicated snapshots in a local folder, over SFTP, REST or S3',
  },
  async probe(ctx) {
    const bin = String(ctx.settings.bin ?? 'restic')
    try {
      const res = await ctx.run(bin, ['version'], { timeoutMs: 10_000 })
      if (res.code !== 0) return { supported: false, reason: `${bin} version failed: exit ${res.code}` }
      return { supported: true }
    } catch (err) {
      if (err instanceof ToolMissingError) return { supported: false, reason: `${bin} is not installed (Debian: apt install restic)` }
      throw err
    }
  },
  create: async (ctx) => createRestic(ctx),
})
