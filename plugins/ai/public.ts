/**
 * What the AI plugin provides to plugins that list `ai` in their dependencies:
 *
 *   const ai = api.services.get<AiPluginService>('ai')
 *   const client = ai.clientFor(userId)        // null: the user has no AI settings
 *   const [vector] = await client.embed(['text'])
 *   const line = await client.chat([{ role: 'user', content: 'Summarise: ...' }])
 *   const caption = await client.describeImage(jpegBytes, 'image/jpeg', 'Describe this photo')
 *
 * Every call goes to the user's own provider with the user's own key; a failure
 * throws ProviderError (unreachable, time-out, refused), never an HttpError.
 */
import type { AiClient } from './provider/client.js'

export interface AiPluginService {
  clientFor(userId: string): AiClient | null
}

export type { AiClient, ChatMessage, ProviderName } from './provider/client.js'
export { ProviderError } from './provider/http.js'
