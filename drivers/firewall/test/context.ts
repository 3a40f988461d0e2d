import type { Test } from 'tap'
import type { CommandRunner, DriverContext, RunResult } from '../../../core/plugin-api.js'
import { driverContext, silentLog } from '../../../test/drivers.js'

export { silentLog }

/** One expected tool call and what the (real, captured) tool answered. */
export interface Step {
  args: string[]
  result: Partial<RunResult> | Error
}

/**
 * A runner that replays captured nft output in order and records every
 * argument array, so tests check the exact commands the driver runs.
 */
export function scriptedRunner(t: Test, steps: Step[]): CommandRunner & { calls: string[][] } {
  const calls: string[][] = []
  const runner = async (cmd: string, args: readonly string[]): Promise<RunResult> => {
    calls.push([...args])
    t.equal(cmd, 'nft', 'runs nft directly, no shell')
    const step = steps[calls.length - 1]
    if (!step) throw new Error(`unexpected call: nft ${args.join(' ')}`)
    if (step.result instanceof Error) throw step.result
    return { code: 0, stdout: '', stderr: '', ...step.result }
  }
  return Object.assign(runner, { calls })
}

export function context(run: CommandRunner, settings: Record<string, unknown> = {}): DriverContext {
  return driverContext(run, settings)
}
