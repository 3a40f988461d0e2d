import { driverContext, silentLog } from '../../../test/drivers.js'
import type { DriverContext } from '../../../core/plugin-api.js'
import { type ReplyTable, replayRunner, type ReplayRunner, TOOL_VERSIONS } from './replay.js'

/** The DriverContext the HAL would hand a driver, running tools through a replay table. */
export function replayContext(table: ReplyTable, settings: Record<string, unknown> = {}): DriverContext & { run: ReplayRunner } {
  return driverContext(replayRunner({ ...TOOL_VERSIONS, ...table }), settings)
}

export { silentLog }
