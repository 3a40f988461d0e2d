import type { FastifyBaseLogger } from 'fastify'
import type { DriverContext } from '../../../core/plugin-api.js'
import { type ReplyTable, replayRunner, type ReplayRunner, TOOL_VERSIONS } from './replay.js'

/** A logger that drops everything: driver tests assert results, not log lines. */
export const silentLog: FastifyBaseLogger = (() => {
  const noop = () => undefined
  const log = { level: 'silent', fatal: noop, error: noop, warn: noop, info: noop, debug: noop, trace: noop, silent: noop } as Record<
    string,
    unknown
  >
  log.child = () => log
  return log as unknown as FastifyBaseLogger
})()

/** The DriverContext the HAL would hand a driver, running tools through a replay table. */
export function replayContext(table: ReplyTable, settings: Record<string, unknown> = {}): DriverContext & { run: ReplayRunner } {
  return {
    run: replayRunner({ ...TOOL_VERSIONS, ...table }),
    log: silentLog,
    dataDir: '/tmp',
    now: Date.now,
    settings,
  }
}
