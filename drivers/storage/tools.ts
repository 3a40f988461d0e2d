import { type DriverContext, HttpError, type RunOptions, type RunResult, ToolMissingError } from '../../core/plugin-api.js'

/**
 * Runs one OS tool for a storage driver and turns every way it can fail into
 * an API error: a missing tool or a hung one is a dependent component being
 * unavailable (503), never a 500.
 */
export async function runTool(ctx: DriverContext, cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = opts.timeoutMs ?? Number(ctx.settings.toolTimeoutMs ?? 15_000)
  try {
    const result = await ctx.run(cmd, args, { ...opts, timeoutMs, env: { LC_ALL: 'C', ...opts.env } })
    if (result.code === null) {
      throw new HttpError('SERVICE_UNAVAILABLE', `${cmd} did not answer within ${timeoutMs} ms`, { tool: cmd })
    }
    return result
  } catch (err) {
    if (err instanceof ToolMissingError) {
      throw new HttpError('SERVICE_UNAVAILABLE', `${cmd} is not installed`, { tool: cmd })
    }
    throw err
  }
}

/** Runs a tool that must succeed; a non-zero exit is the tool refusing (503 with its first stderr line). */
export async function runOk(ctx: DriverContext, cmd: string, args: readonly string[], opts?: RunOptions): Promise<string> {
  const result = await runTool(ctx, cmd, args, opts)
  if (result.code !== 0) {
    throw new HttpError('SERVICE_UNAVAILABLE', `${cmd} failed: ${firstLine(result.stderr) || `exit ${result.code}`}`, {
      tool: cmd,
      exit_code: result.code,
    })
  }
  return result.stdout
}

export function parseToolJson<T>(cmd: string, text: string): T {
  try {
    return JSON.parse(text) as T
  } catch {
    throw new HttpError('SERVICE_UNAVAILABLE', `${cmd} printed output that is not JSON`, { tool: cmd })
  }
}

export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? ''
  )
}

/** True when the tool exists and `args` exits 0 (used by probes, which must never throw). */
export async function toolWorks(ctx: DriverContext, cmd: string, args: readonly string[]): Promise<boolean> {
  try {
    const result = await ctx.run(cmd, args, { timeoutMs: 5_000 })
    return result.code === 0
  } catch {
    return false
  }
}
