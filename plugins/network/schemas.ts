import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp } from '../../core/plugin-api.js'

const Type_ = Type.Union(
  ['ethernet', 'wifi', 'loopback', 'bridge', 'vlan', 'bond', 'tunnel', 'virtual', 'other'].map((t) => Type.Literal(t)),
)

export const NetworkInterface = Type.Object({
  name: Type.String(),
  mac: Nullable(Type.String()),
  ipv4: Nullable(Type.String()),
  ipv6: Nullable(Type.String()),
  type: Type_,
  status: StringEnum(['up', 'down', 'unknown'] as const),
  speed_mbps: Nullable(Type.Integer()),
  virtual: Type.Boolean(),
})

export const Connectivity = Type.Object({
  online: Type.Boolean(),
  latency_ms: Nullable(Type.Integer()),
  checked_at: Timestamp,
})
