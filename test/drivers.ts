import type { FastifyBaseLogger } from 'fastify'
import type { CommandRunner, DriverContext } from '../core/plugin-api.js'

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

/** The DriverContext the HAL hands a driver, with the runner a test chooses (replayed captures or the real tools). */
export function driverContext<R extends CommandRunner>(run: R, settings: Record<string, unknown> = {}): DriverContext & { run: R } {
  return { run, log: silentLog, dataDir: '/tmp', now: Date.now, settings }
}
