import { type Static, Type } from '@sinclair/typebox'
import { env } from '../../lib/config-env.js'

/**
 * The AI plugin's config slice. Provider base URLs are instance settings
 * (docs/api.md: every outside service has a base URL in config); a user picks
 * a provider, and only an admin may point their own settings at another URL.
 */

export const AiConfig = Type.Object({
  /** OpenAI's API root (the client appends /v1/embeddings, /v1/chat/completions). */
  openaiUrl: env('HEARTH_AI_OPENAI_URL', Type.String({ minLength: 1, default: 'https://api.openai.com' })),
  /** A server speaking the OpenAI wire format (llama.cpp, vLLM, LM Studio). */
  compatibleUrl: env('HEARTH_AI_COMPATIBLE_URL', Type.String({ minLength: 1, default: 'http://127.0.0.1:8080' })),
  /** Ollama's API root (/api/embed, /api/chat). */
  ollamaUrl: env('HEARTH_AI_OLLAMA_URL', Type.String({ minLength: 1, default: 'http://127.0.0.1:11434' })),
  /** Time-out of one provider call. */
  timeoutMs: env('HEARTH_AI_TIMEOUT_MS', Type.Integer({ minimum: 100, maximum: 600_000, default: 30_000 })),
  /** 'auto' loads sqlite-vec and falls back to the plain scan; 'scan' never loads it. */
  vectorSearch: env('HEARTH_AI_VECTOR_SEARCH', Type.Union([Type.Literal('auto'), Type.Literal('scan')], { default: 'auto' })),
  /** Texts per embeddings call. */
  batchSize: env('HEARTH_AI_BATCH_SIZE', Type.Integer({ minimum: 1, maximum: 2048, default: 64 })),
  /** How long record changes gather before one batched embeddings call. */
  indexDelayMs: env('HEARTH_AI_INDEX_DELAY_MS', Type.Integer({ minimum: 0, maximum: 600_000, default: 500 })),
  /** First retry delay of a failed batch (doubled each attempt). */
  retryDelayMs: env('HEARTH_AI_RETRY_DELAY_MS', Type.Integer({ minimum: 1, maximum: 3_600_000, default: 2_000 })),
  /** Attempts of one change before it is left for the next reindex. */
  maxAttempts: env('HEARTH_AI_MAX_ATTEMPTS', Type.Integer({ minimum: 1, maximum: 100, default: 6 })),
})
export type AiConfig = Static<typeof AiConfig>
