import { type Static, Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp, Uuid } from '../../core/plugin-api.js'
import { TEMPLATE_NAMES } from './services/templates.js'

/** TypeBox schemas of the DNS API: validation, types and OpenAPI from one source. */

export const RecordTypeSchema = StringEnum(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'NS'] as const, {
  description: 'A, AAAA, CNAME, MX, TXT, SRV, CAA, NS',
})

export const Zone = Type.Object({
  id: Uuid,
  zone: Type.String(),
  mode: StringEnum(['authoritative', 'proxy'] as const),
  provider_account_id: Nullable(Uuid),
  ns_verified: Type.Boolean(),
  propagation_status: StringEnum(['pending', 'verified', 'failed'] as const),
  ddns_enabled: Type.Boolean(),
  ddns_record_ids: Type.Array(Type.String()),
  records_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
})

export const ZoneBody = Type.Object(
  {
    zone: Type.String({ minLength: 1, maxLength: 253 }),
    mode: StringEnum(['authoritative', 'proxy'] as const),
    provider_account_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
)
export type ZoneBody = Static<typeof ZoneBody>

export const DnsRecord = Type.Object({
  id: Type.String(),
  zone_id: Uuid,
  type: Type.String({ description: 'A, AAAA, CNAME, MX, TXT, SRV, CAA, NS; SOA for the server-managed apex record' }),
  name: Type.String({ description: "relative to the zone, '@' for the apex" }),
  content: Type.String(),
  ttl: Type.Integer(),
  priority: Nullable(Type.Integer()),
  proxied: Type.Boolean(),
})

export const RecordBody = Type.Object(
  {
    type: RecordTypeSchema,
    name: Type.String({ maxLength: 253 }),
    content: Type.String({ maxLength: 4096 }),
    ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400 })),
    priority: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 65535 }))),
    proxied: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

export const ZoneParams = Type.Object({ id: Uuid })
export const RecordParams = Type.Object({ id: Uuid, recordId: Type.String({ minLength: 1, maxLength: 128 }) })

export const DdnsBody = Type.Object(
  { ddns_enabled: Type.Boolean(), ddns_record_ids: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100 })) },
  { additionalProperties: false },
)

export const TemplateBody = Type.Object(
  {
    template: StringEnum(TEMPLATE_NAMES),
    variables: Type.Record(Type.String(), Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: false },
)

export const Template = Type.Object({
  name: Type.String(),
  description: Type.String(),
  required_variables: Type.Array(Type.String()),
  records: Type.Array(
    Type.Object({
      type: Type.String(),
      name: Type.String(),
      content: Type.String(),
      ttl: Type.Integer(),
      priority: Nullable(Type.Integer()),
    }),
  ),
})

export const Account = Type.Object({
  id: Uuid,
  provider: Type.String(),
  label: Type.String(),
  created_at: Timestamp,
  last_tested_at: Nullable(Timestamp),
  connected: Nullable(Type.Boolean()),
})

export const AccountBody = Type.Object(
  {
    provider: Type.String({ minLength: 1 }),
    label: Type.String({ minLength: 1, maxLength: 100 }),
    credentials: Type.Record(Type.String(), Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
)

export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) })

export const NsResult = Type.Object({
  verified: Type.Boolean(),
  ns_found: Type.Array(Type.String()),
  expected_ns: Type.Array(Type.String()),
  expected_ip: Type.String(),
  propagation_status: StringEnum(['pending', 'verified', 'failed'] as const),
  checked_at: Timestamp,
})
