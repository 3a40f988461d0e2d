import { Type } from '@sinclair/typebox'
import { Limit, Nullable, Offset, StringEnum, Tier, Timestamp } from '../../core/plugin-api.js'
import { PROVIDERS } from './provider/client.js'
import { SEMANTIC_TYPES } from './semantic/text.js'

export const Provider = StringEnum(PROVIDERS)

export const AiSettings = Type.Object({
  provider: Nullable(Provider),
  model: Nullable(Type.String()),
  embedding_model: Nullable(Type.String()),
  base_url: Nullable(Type.String({ description: 'custom base URL (admins only); null: the instance URL of the provider' })),
  configured: Type.Boolean({ description: 'an API key is stored (it is never returned)' }),
  updated_at: Nullable(Timestamp),
})

const ModelName = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f]+$' })

export const AiSettingsBody = Type.Object(
  {
    provider: Provider,
    model: { ...ModelName, description: 'chat and vision model' },
    embedding_model: ModelName,
    api_key: Type.Optional(
      Type.String({
        maxLength: 1000,
        pattern: '^[^\\u0000-\\u001f]*$',
        description: "sent as a Bearer token; omitted: keep the stored key; '': remove it",
      }),
    ),
    base_url: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2048, description: 'admins only (403 FORBIDDEN otherwise)' }))),
  },
  { additionalProperties: false },
)

export const AiTestResult = Type.Object({
  ok: Type.Boolean(),
  provider: Provider,
  embedding_model: Type.String(),
  dimensions: Nullable(Type.Integer()),
  latency_ms: Type.Integer(),
  error: Nullable(Type.String()),
})

export const IndexState = Type.Object({
  status: StringEnum(['empty', 'running', 'ready', 'failed'] as const),
  total: Type.Integer(),
  done: Type.Integer(),
  failed: Type.Integer(),
  pending: Type.Integer({ description: 'record changes waiting for the live indexer' }),
  indexed: Type.Integer({ description: 'embeddings stored for the current embedding model' }),
  model: Nullable(Type.String()),
  dimensions: Nullable(Type.Integer()),
  vector_search: StringEnum(['sqlite-vec', 'scan'] as const),
  error: Nullable(Type.String()),
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
})

export const SemanticQuery = Type.Object(
  {
    q: Type.String({ minLength: 1, maxLength: 2000 }),
    types: Type.Optional(
      Type.String({
        pattern: '^(notes|contacts|events|tasks)(,(notes|contacts|events|tasks)){0,3}$',
        description: 'comma-separated; default all four',
      }),
    ),
    mode: Type.Optional(StringEnum(['semantic', 'hybrid'] as const, { default: 'semantic' })),
    limit: Limit,
    offset: Offset,
  },
  { additionalProperties: false },
)

export const SemanticHit = Type.Object({
  type: StringEnum(SEMANTIC_TYPES),
  id: Type.String(),
  score: Type.Number(),
  record: Type.Object({}, { additionalProperties: true, description: 'the record in its compact form' }),
})

export const SemanticList = Type.Object({
  data: Type.Array(SemanticHit),
  meta: Type.Object({
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
    mode: StringEnum(['semantic', 'hybrid', 'fulltext'] as const),
    fallback: Type.Boolean({ description: 'true: the provider could not embed the query, or the index is being built; full-text ranking' }),
    note: Type.Optional(Type.String()),
  }),
  tier: Tier,
})
