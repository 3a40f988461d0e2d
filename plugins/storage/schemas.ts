import { type Static, Type } from '@sinclair/typebox'
import { DISK_ID_PATTERN } from '../../drivers/storage/disk-id.js'
import { POOL_NAME_PATTERN } from '../../drivers/storage/mdadm/driver.js'
import { Nullable, StringEnum } from '../../core/plugin-api.js'

const Int = Type.Integer()
const NullableInt = Nullable(Type.Integer())
const Health = StringEnum(['healthy', 'warning', 'critical', 'unknown'] as const)
const SmartStatus = StringEnum(['healthy', 'warning', 'critical'] as const)

export const StorageStatus = Type.Object({
  provider: Type.String(),
  total_bytes: Int,
  used_bytes: Int,
  free_bytes: Int,
  health: Health,
  /** The mount point whose numbers these are (the volume holding the data folder). */
  mount_point: Type.String(),
})

export const Capabilities = Type.Object({
  provider: Nullable(Type.String()),
  capabilities: Type.Record(Type.String(), Type.Boolean()),
  missing_for_full: Nullable(Type.String()),
  drivers: Type.Array(
    Type.Object({
      name: Type.String(),
      priority: Type.Integer(),
      active: Type.Boolean(),
      supported: Nullable(Type.Boolean()),
      reason: Type.Optional(Type.String()),
    }),
  ),
})

export const Partition = Type.Object({
  name: Type.String(),
  mount_point: Nullable(Type.String()),
  filesystem: Nullable(Type.String()),
  size_bytes: Int,
})

export const Disk = Type.Object({
  id: Type.String({ pattern: DISK_ID_PATTERN }),
  device: Type.String(),
  model: Nullable(Type.String()),
  serial: Nullable(Type.String()),
  size_bytes: Int,
  type: StringEnum(['hdd', 'ssd', 'nvme', 'usb', 'unknown'] as const),
  temperature_c: NullableInt,
  smart_status: Nullable(SmartStatus),
  partitions: Type.Array(Partition),
})

export const SmartAttribute = Type.Object({
  id: NullableInt,
  name: Type.String(),
  value: NullableInt,
  worst: NullableInt,
  threshold: NullableInt,
  raw_value: Nullable(Type.Number()),
  raw_string: Nullable(Type.String()),
  when_failed: Nullable(Type.String()),
  prefailure: Nullable(Type.Boolean()),
})

export const SmartRecord = Type.Object({
  disk_id: Type.String(),
  overall_status: SmartStatus,
  power_on_hours: NullableInt,
  temperature_c: NullableInt,
  reallocated_sectors: NullableInt,
  attributes: Type.Array(SmartAttribute),
})

export const Volume = Type.Object({
  mount_point: Type.String(),
  filesystem: Type.String(),
  size_bytes: Int,
  used_bytes: Int,
  free_bytes: Int,
  status: StringEnum(['ok', 'warning', 'full'] as const),
  source: Type.String(),
  windows: Type.Boolean(),
})

export const DataUsageCategory = Type.Object({
  name: Type.String(),
  label: Type.String(),
  size_bytes: Int,
  status: StringEnum(['ok', 'timeout'] as const),
})

export const Pool = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  status: StringEnum(['healthy', 'degraded', 'rebuilding', 'resyncing', 'inactive', 'failed'] as const),
  size_bytes: Int,
  disks: Type.Array(
    Type.Object({
      id: Nullable(Type.String()),
      device: Type.String(),
      state: StringEnum(['active', 'rebuilding', 'spare', 'faulty'] as const),
    }),
  ),
  degraded: Type.Boolean(),
  rebuild_progress: Nullable(Type.Number()),
})

export const CreatePoolBody = Type.Object(
  {
    name: Type.String({ pattern: POOL_NAME_PATTERN }),
    type: StringEnum(['raid0', 'raid1', 'raid5', 'raid6', 'raid10'] as const),
    diskIds: Type.Array(Type.String({ pattern: DISK_ID_PATTERN }), { minItems: 1, maxItems: 64, uniqueItems: true }),
  },
  { additionalProperties: false },
)
export type CreatePoolBody = Static<typeof CreatePoolBody>

export const DiskParams = Type.Object({ id: Type.String({ pattern: DISK_ID_PATTERN, maxLength: 64 }) })
export const VolumesQuery = Type.Object({ include_windows: Type.Boolean({ default: false }) })

export const DetectResult = Type.Object({
  previous: Nullable(Type.String()),
  current: Nullable(Type.String()),
  changed: Type.Boolean(),
})
