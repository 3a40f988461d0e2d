import { HttpError } from '../../../core/plugin-api.js'
import type { SmartAttribute, SmartRecord, SmartStatus } from '../driver.js'

/**
 * `smartctl --json -a /dev/X` into the SMART record. smartctl's exit status
 * is a bit mask (smartctl(8) "RETURN VALUES"): bit 0 the command line did
 * not parse (also: unknown device type or USB bridge), bit 1 the device could
 * not be opened, bit 3
 * "DISK FAILING", bit 4 prefail attributes at or below threshold, bit 5
 * attributes below threshold in the past.
 */
interface SmartctlJson {
  smartctl?: { exit_status?: number; messages?: Array<{ string?: string; severity?: string }> }
  smart_support?: { available?: boolean; enabled?: boolean }
  smart_status?: { passed?: boolean }
  power_on_time?: { hours?: number }
  temperature?: { current?: number }
  ata_smart_attributes?: {
    table?: Array<{
      id?: number
      name?: string
      value?: number
      worst?: number
      thresh?: number
      when_failed?: string
      flags?: { prefailure?: boolean }
      raw?: { value?: number; string?: string }
    }>
  }
  nvme_smart_health_information_log?: Record<string, number | number[]>
}

const BIT_FAILING = 8
const BIT_PREFAIL_NOW = 16
const BIT_PAST = 32

const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : null)

function ataAttributes(json: SmartctlJson): SmartAttribute[] {
  return (json.ata_smart_attributes?.table ?? []).map((a) => ({
    id: int(a.id),
    name: a.name ?? `attribute_${a.id}`,
    value: int(a.value),
    worst: int(a.worst),
    threshold: int(a.thresh),
    raw_value: int(a.raw?.value),
    raw_string: a.raw?.string ?? null,
    when_failed: a.when_failed ? a.when_failed : null,
    prefailure: a.flags?.prefailure ?? null,
  }))
}

function nvmeAttributes(log: Record<string, number | number[]>): SmartAttribute[] {
  return Object.entries(log)
    .filter(([, v]) => typeof v === 'number')
    .map(([name, v]) => ({
      id: null,
      name,
      value: null,
      worst: null,
      threshold: null,
      raw_value: v as number,
      raw_string: String(v),
      when_failed: null,
      prefailure: null,
    }))
}

/** The worst of two statuses. */
const worse = (a: SmartStatus, b: SmartStatus): SmartStatus => {
  const rank = { healthy: 0, warning: 1, critical: 2 }
  return rank[a] >= rank[b] ? a : b
}

function overallStatus(json: SmartctlJson, attrs: SmartAttribute[], exit: number): SmartStatus {
  let status: SmartStatus = 'healthy'
  if (json.smart_status?.passed === false || exit & BIT_FAILING || exit & BIT_PREFAIL_NOW) status = 'critical'
  if (exit & BIT_PAST) status = worse(status, 'warning')
  const raw = (id: number) => attrs.find((a) => a.id === id)?.raw_value ?? 0
  for (const a of attrs) {
    if (a.when_failed === 'now' || a.when_failed === 'FAILING_NOW') status = 'critical'
    else if (a.when_failed) status = worse(status, 'warning')
  }
  // Reallocated (5), pending (197) and offline-uncorrectable (198) sectors: the
  // early signs the Backblaze data ties to failures, long before the verdict flips.
  if (raw(5) > 0 || raw(197) > 0 || raw(198) > 0) status = worse(status, 'warning')
  const nvme = json.nvme_smart_health_information_log
  if (nvme) {
    const n = (k: string) => (typeof nvme[k] === 'number' ? (nvme[k] as number) : 0)
    if (n('critical_warning') !== 0) status = 'critical'
    if (typeof nvme.available_spare === 'number' && n('available_spare') <= n('available_spare_threshold')) status = 'critical'
    if (n('media_errors') > 0 || n('percentage_used') >= 90) status = worse(status, 'warning')
  }
  return status
}

/** null when the device answers no SMART (virtual disk, USB bridge without pass-through). */
export function parseSmartctl(diskId: string, stdout: string, code: number | null): SmartRecord | null {
  let json: SmartctlJson
  try {
    json = JSON.parse(stdout) as SmartctlJson
  } catch {
    throw new HttpError('SERVICE_UNAVAILABLE', 'smartctl printed output that is not JSON', { tool: 'smartctl' })
  }
  // Bits 0 and 1 without data are how smartctl says it cannot talk SMART to this
  // device ("Unable to detect device type", "Unknown USB bridge"): no SMART, not an error.
  const exit = json.smartctl?.exit_status ?? code ?? 0
  const nvme = json.nvme_smart_health_information_log
  const attributes = nvme ? nvmeAttributes(nvme) : ataAttributes(json)
  const hasVerdict = typeof json.smart_status?.passed === 'boolean'
  if (!hasVerdict && attributes.length === 0) return null
  if (json.smart_support?.available === false) return null

  const realloc = attributes.find((a) => a.id === 5)
  const temperature = int(json.temperature?.current) ?? (nvme ? int(nvme.temperature) : null)
  return {
    disk_id: diskId,
    overall_status: overallStatus(json, attributes, exit),
    power_on_hours: int(json.power_on_time?.hours) ?? (nvme ? int(nvme.power_on_hours) : null),
    temperature_c: temperature,
    reallocated_sectors: realloc ? realloc.raw_value : null,
    attributes,
  }
}

/** `-n standby` makes smartctl answer "in standby" (exit 2, no data) instead of spinning the disk up. */
export const SMARTCTL_ARGS = (device: string, opts: { wake: boolean } = { wake: true }) =>
  opts.wake ? ['--json', '-a', device] : ['--json', '-a', '-n', 'standby', device]
