import { readFileSync } from 'node:fs'
import { type CommandRunner, type RunResult, ToolMissingError } from '../../../core/plugin-api.js'

/**
 * A CommandRunner that replays captured output of the real tools, keyed by
 * the exact command line ("lsblk --json ..."). A command not in the table is
 * a tool that is not installed, as the real runner reports it (ENOENT).
 * Tests may swap replies while running (hot-swap) and delay them (in-flight
 * requests).
 */
export interface Reply {
  stdout?: string
  stderr?: string
  code?: number | null
  delayMs?: number
  /** Answer only once this settles (tests holding a tool call open on purpose). */
  wait?: Promise<unknown>
}

export type ReplyTable = Record<string, Reply | (() => Reply)>

export interface ReplayRunner extends CommandRunner {
  table: ReplyTable
  /** Every command line run, in order. */
  calls: string[]
}

export const commandLine = (cmd: string, args: readonly string[]) => [cmd, ...args].join(' ')

export function replayRunner(table: ReplyTable): ReplayRunner {
  const calls: string[] = []
  const run = (async (cmd: string, args: readonly string[]): Promise<RunResult> => {
    const key = commandLine(cmd, args)
    calls.push(key)
    const entry = run.table[key]
    if (!entry) throw new ToolMissingError(cmd)
    const reply = typeof entry === 'function' ? entry() : entry
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
    if (reply.wait) await reply.wait
    return { code: reply.code === undefined ? 0 : reply.code, stdout: reply.stdout ?? '', stderr: reply.stderr ?? '' }
  }) as ReplayRunner
  run.table = table
  run.calls = calls
  return run
}

export const readFixture = (path: string) => readFileSync(path, 'utf8')

/** What `--version` of each tool answers on this VM (stdout or stderr; only the exit code matters). */
export const TOOL_VERSIONS: ReplyTable = {
  'lsblk --version': { stdout: 'lsblk from util-linux 2.38.1\n' },
  'smartctl --version': { stdout: 'smartctl 7.3 2022-02-28 r5338 [x86_64-linux] (local build)\n' },
  'mdadm --version': { stderr: 'mdadm - v4.2 - 2021-12-30 - Debian 4.2-5\n' },
}
