/**
 * The provider client every plugin uses (through the AI plugin's service):
 * embeddings, chat and image description against the user's provider.
 *   openai, openai-compatible: POST /v1/embeddings, /v1/chat/completions
 *   ollama: POST /api/embed, /api/chat
 */
import { postJson, ProviderError } from './http.js'

export const PROVIDERS = ['openai', 'openai-compatible', 'ollama'] as const
export type ProviderName = (typeof PROVIDERS)[number]

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export interface AiClient {
  readonly provider: ProviderName
  readonly model: string
  readonly embeddingModel: string
  /** One vector per text, in order. */
  embed(texts: string[]): Promise<number[][]>
  /** The assistant's answer. */
  chat(messages: ChatMessage[]): Promise<string>
  /** The vision model's answer about one image. */
  describeImage(image: Buffer, mime: string, prompt: string): Promise<string>
}

export interface ClientSettings {
  provider: ProviderName
  model: string
  embeddingModel: string
  apiKey: string | null
  /** The API root, without /v1 (a trailing /v1 is tolerated). */
  baseUrl: string
  timeoutMs: number
}

export function createClient(s: ClientSettings): AiClient {
  const root = s.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
  const post = (path: string, body: unknown) => postJson(`${root}${path}`, body, { timeoutMs: s.timeoutMs, apiKey: s.apiKey })
  const base = { provider: s.provider, model: s.model, embeddingModel: s.embeddingModel }
  if (s.provider === 'ollama') {
    const chat = async (messages: Array<ChatMessage & { images?: string[] }>) => {
      const body = (await post('/api/chat', { model: s.model, messages, stream: false })) as { message?: { content?: unknown } }
      return textOf(body.message?.content)
    }
    return {
      ...base,
      async embed(texts) {
        if (texts.length === 0) return []
        const body = (await post('/api/embed', { model: s.embeddingModel, input: texts })) as { embeddings?: unknown }
        return vectorsOf(body.embeddings, texts.length)
      },
      chat,
      describeImage: (image, _mime, prompt) => chat([{ role: 'user', content: prompt, images: [image.toString('base64')] }]),
    }
  }
  const chat = async (messages: unknown[]) => {
    const body = (await post('/v1/chat/completions', { model: s.model, messages })) as {
      choices?: Array<{ message?: { content?: unknown } }>
    }
    return textOf(body.choices?.[0]?.message?.content)
  }
  return {
    ...base,
    async embed(texts) {
      if (texts.length === 0) return []
      const body = (await post('/v1/embeddings', { model: s.embeddingModel, input: texts })) as {
        data?: Array<{ index?: number; embedding?: unknown }>
      }
      if (!Array.isArray(body.data)) throw new ProviderError('embeddings answer without data')
      const ordered = [...body.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding)
      return vectorsOf(ordered, texts.length)
    },
    chat,
    describeImage: (image, mime, prompt) =>
      chat([
        {
          role: 'user',
          content: [
            { type: 'text', text: prompt },
            { type: 'image_url', image_url: { url: `data:${mime};base64,${image.toString('base64')}` } },
          ],
        },
      ]),
  }
}

function textOf(content: unknown): string {
  if (typeof content !== 'string') throw new ProviderError('chat answer without text')
  return content
}

function vectorsOf(value: unknown, expected: number): number[][] {
  if (!Array.isArray(value) || value.length !== expected) throw new ProviderError(`expected ${expected} embeddings from the provider`)
  const dims = Array.isArray(value[0]) ? value[0].length : 0
  for (const v of value) {
    if (!Array.isArray(v) || v.length !== dims || dims === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw new ProviderError('the provider answered malformed embeddings')
  }
  return value as number[][]
}
