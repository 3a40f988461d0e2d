import { spawn } from 'node:child_process'
import { createLineSplitter } from '../../../lib/line-splitter.js'
import { withoutSecrets } from '../../../lib/url-credentials.js'
import { OffsiteError } from '../driver.js'

export interface ResticInvocation {
  bin: string
  /** Global options first (repository, cache, sftp command), then the command and its arguments. */
  args: string[]
  password: string
  cwd?: string
  /** Each line of standard output (JSON with --json), as it arrives. */
  onLine?: (line: string) => void
  /** Keep standard output whole (a JSON document on one line), up to this many characters. */
  collect?: number
  signal?: AbortSignal
}

export interface ResticExit {
  code: number | null
  /** The last lines of standard error and, without onLine, of standard output: secrets removed. */
  tail: string[]
  /** Standard output when `collect` was asked ('' otherwise, or when it passed the limit). */
  stdout: string
}

const TAIL_LINES = 40
/** restic's own variables that would point it elsewhere than the settings say. */
const FOREIGN = ['RESTIC_REPOSITORY', 'RESTIC_REPOSITORY_FILE', 'RESTIC_PASSWORD_FILE', 'RESTIC_PASSWORD_COMMAND', 'RESTIC_PASSWORD']

/**
 * Runs restic with an argument array (no shell). The password goes in the child's environment
 * (RESTIC_PASSWORD), never on its command line where `ps` shows it; everything kept from its
 * output has the password and URL credentials removed before anyone sees it.
 */
export function runRestic(inv: ResticInvocation): Promise<ResticExit> {
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C', RESTIC_PROGRESS_FPS: '2' }
  for (const k of FOREIGN) delete env[k]
  env.RESTIC_PASSWORD = inv.password
  const clean = (line: string) => withoutSecrets(line, [inv.password])
  const tail: string[] = []
  // A line naming the cause (a full disk) is kept even when a long panic that follows it pushes it out
  // of the tail: restic can hit ENOSPC, report it, then crash with a goroutine dump.
  const causes: string[] = []
  const keep = (line: string) => {
    if (!line.trim()) return
    tail.push(clean(line))
    if (NO_SPACE.test(line) && causes.length < 3) causes.push(clean(line))
    if (tail.length > TAIL_LINES) tail.shift()
  }
  return new Promise((resolve, reject) => {
    const child = spawn(inv.bin, inv.args, { cwd: inv.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const out = createLineSplitter(inv.onLine ?? keep)
    const err = createLineSplitter(keep)
    let stdout = ''
    let over = false
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      if (!inv.collect) return out.push(c)
      if (over || stdout.length + c.length > inv.collect) {
        over = true
        stdout = ''
      } else stdout += c
    })
    child.stderr.setEncoding('utf8').on('data', (c: string) => err.push(c))
    const abort = () => child.kill('SIGTERM')
    inv.signal?.addEventListener('abort', abort, { once: true })
    child.on('error', (e: NodeJS.ErrnoException) => {
      inv.signal?.removeEventListener('abort', abort)
      reject(e.code === 'ENOENT' ? new OffsiteError(`${inv.bin} is not installed (Debian: apt install restic)`, 'missing-tool') : e)
    })
    child.on('close', (code) => {
      inv.signal?.removeEventListener('abort', abort)
      out.end()
      err.end()
      resolve({ code, tail: [...causes.filter((c) => !tail.includes(c)), ...tail], stdout })
    })
  })
}

/** The kind of failure a restic message describes. */
export function classify(tail: string[]): OffsiteError['kind'] {
  const text = tail.join('\n')
  if (/wrong password or no key found/i.test(text)) return 'wrong-password'
  if (/Is there a repository at the following location|unable to open config file/i.test(text)) return 'not-a-repository'
  if (/subprocess ssh|unable to start the sftp session|connection refused|no route to host|Could not resolve/i.test(text))
    return 'unreachable'
  if (NO_SPACE.test(text)) return 'no-space'
  return 'failed'
}

/** restic passes the OS's words on: ENOSPC locally, the SFTP server's "failure" when its disk is full. */
const NO_SPACE = /no space left on device|ENOSPC|disk quota exceeded|not enough space/i

/** The error of a failed run: its last meaningful lines, already free of secrets. */
export function failure(what: string, exit: ResticExit): OffsiteError {
  const lines = exit.tail.filter((l) => !/^\s*\{/.test(l))
  const fatal = lines.filter((l) => /Fatal|error|ssh|denied|space/i.test(l))
  const detail = (fatal.length ? fatal : lines).slice(-3).join('; ') || `exit ${exit.code ?? 'killed'}`
  const kind = classify(exit.tail)
  // The full line names a temporary pack file deep in the repository: the reader needs the cause first.
  if (kind === 'no-space')
    return new OffsiteError(
      `the off-site target is full (no space left on device): free space there or use a larger target, then run again; restic ${what} failed: ${detail}`,
      kind,
    )
  return new OffsiteError(`restic ${what} failed: ${detail}`, kind)
}
