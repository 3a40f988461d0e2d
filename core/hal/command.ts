import { execFile } from 'node:child_process'

export interface RunOptions {
  /** Kill the tool after this many milliseconds (default 30 s). */
  timeoutMs?: number
  /** Written to the tool's standard input. */
  input?: string
  env?: Record<string, string>
}

export interface RunResult {
  /** Exit code; null when the tool was killed (time-out). */
  code: number | null
  stdout: string
  stderr: string
}

/**
 * The one way drivers run OS tools: an argument array, never a shell string.
 * Tests inject a runner that replays captured output of the real tools.
 */
export type CommandRunner = (cmd: string, args: readonly string[], opts?: RunOptions) => Promise<RunResult>

/** Raised when the tool itself is not installed (ENOENT), so a driver can say "not supported". */
const TOOL_MISSING = Symbol.for('hearth.ToolMissingError')

export class ToolMissingError extends Error {
  constructor(readonly tool: string) {
    super(`${tool} is not installed`)
    this.name = 'ToolMissingError'
    Object.defineProperty(this, TOOL_MISSING, { value: true })
  }

  /** Holds across copies of this module (a plugin's driver beside the bundle), as HttpError does. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== ToolMissingError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return value instanceof Error && (value as unknown as Record<symbol, unknown>)[TOOL_MISSING] === true
  }
}

export const runCommand: CommandRunner = (cmd, args, opts = {}) =>
  new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      [...args],
      {
        timeout: opts.timeoutMs ?? 30_000,
        maxBuffer: 64 * 1024 * 1024,
        env: opts.env ? { ...process.env, ...opts.env } : process.env,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') return reject(new ToolMissingError(cmd))
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0
        resolve({ code, stdout, stderr })
      },
    )
    if (opts.input !== undefined) child.stdin?.end(opts.input)
  })
