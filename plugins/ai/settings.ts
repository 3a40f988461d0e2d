/**
 * Per-user AI settings (bring your own key). The key is kept encrypted with
 * the instance key and leaves this module only inside a provider client.
 */
import type Database from 'better-sqlite3'
import { HttpError, preparedOnUse, type Secrets } from '../../core/plugin-api.js'
import { parseTargetUrl } from '../../lib/outbound-address.js'
import type { AiConfig } from './config.js'
import { type AiClient, createClient, type ProviderName } from './provider/client.js'

export interface AiSettingsView {
  provider: ProviderName | null
  model: string | null
  embedding_model: string | null
  /** The admin-set custom base URL; null means the instance's URL for the provider. */
  base_url: string | null
  /** A key is stored (it is never returned). */
  configured: boolean
  updated_at: string | null
}

export interface AiSettingsInput {
  provider: ProviderName
  model: string
  embedding_model: string
  /** Omitted: keep the stored key; '': remove it. */
  api_key?: string
  /** Admins only. */
  base_url?: string | null
}

interface Row {
  user_id: string
  provider: ProviderName
  model: string
  embedding_model: string
  api_key_enc: string | null
  base_url: string | null
  updated_at: string
}

export interface SettingsStore {
  view(userId: string): AiSettingsView
  has(userId: string): boolean
  /** Saves; returns whether what embeddings depend on (provider, embedding model, URL) changed. */
  put(userId: string, input: AiSettingsInput, isAdmin: boolean): { view: AiSettingsView; embeddingsChanged: boolean }
  remove(userId: string): boolean
  /** The user's client, or null without settings. */
  client(userId: string): AiClient | null
}

export function settingsStore(db: Database.Database, secrets: Secrets, config: AiConfig, now: () => number): SettingsStore {
  const q = preparedOnUse(db, {
    get: () => db.prepare<[string], Row>('SELECT * FROM ai_settings WHERE user_id = ?'),
    upsert: () =>
      db.prepare(
        `INSERT INTO ai_settings (user_id, provider, model, embedding_model, api_key_enc, base_url, updated_at)
     VALUES (@user_id, @provider, @model, @embedding_model, @api_key_enc, @base_url, @updated_at)
     ON CONFLICT (user_id) DO UPDATE SET provider = excluded.provider, model = excluded.model,
       embedding_model = excluded.embedding_model, api_key_enc = excluded.api_key_enc,
       base_url = excluded.base_url, updated_at = excluded.updated_at`,
      ),
    del: () => db.prepare('DELETE FROM ai_settings WHERE user_id = ?'),
  })
  const instanceUrl: Record<ProviderName, string> = {
    openai: config.openaiUrl,
    'openai-compatible': config.compatibleUrl,
    ollama: config.ollamaUrl,
  }
  const view = (row: Row | undefined): AiSettingsView =>
    row
      ? {
          provider: row.provider,
          model: row.model,
          embedding_model: row.embedding_model,
          base_url: row.base_url,
          configured: row.api_key_enc !== null,
          updated_at: row.updated_at,
        }
      : { provider: null, model: null, embedding_model: null, base_url: null, configured: false, updated_at: null }

  return {
    view: (userId) => view(q.get.get(userId)),
    has: (userId) => q.get.get(userId) !== undefined,
    put(userId, input, isAdmin) {
      const before = q.get.get(userId)
      if (input.base_url !== undefined && input.base_url !== null && !isAdmin)
        throw new HttpError(
          'FORBIDDEN',
          'Only an admin may set a custom base_url (the daemon would call it); omit it to use the instance URL',
        )
      if (input.base_url) checkBaseUrl(input.base_url)
      // A non-admin's save keeps no custom URL: an admin's URL never serves a user it was not set by.
      const baseUrl = isAdmin ? (input.base_url === undefined ? (before?.base_url ?? null) : input.base_url) : null
      const keyEnc =
        input.api_key === undefined ? (before?.api_key_enc ?? null) : input.api_key === '' ? null : secrets.encrypt(input.api_key)
      const row: Row = {
        user_id: userId,
        provider: input.provider,
        model: input.model,
        embedding_model: input.embedding_model,
        api_key_enc: keyEnc,
        base_url: baseUrl,
        updated_at: new Date(now()).toISOString(),
      }
      q.upsert.run(row)
      const embeddingsChanged =
        !before || before.provider !== row.provider || before.embedding_model !== row.embedding_model || before.base_url !== row.base_url
      return { view: view(row), embeddingsChanged }
    },
    remove: (userId) => q.del.run(userId).changes > 0,
    client(userId) {
      const row = q.get.get(userId)
      if (!row) return null
      return createClient({
        provider: row.provider,
        model: row.model,
        embeddingModel: row.embedding_model,
        apiKey: row.api_key_enc ? secrets.decrypt(row.api_key_enc) : null,
        baseUrl: row.base_url ?? instanceUrl[row.provider],
        timeoutMs: config.timeoutMs,
      })
    },
  }
}

/** Only an admin sets a base URL, and an admin may reach the local network (an Ollama on the LAN): the address is not judged, the form is. */
function checkBaseUrl(value: string): void {
  const url = parseTargetUrl(value)
  if (!url || url.search || url.hash)
    throw new HttpError('VALIDATION_ERROR', 'base_url: an http(s) URL without credentials, query or fragment', {
      field: 'base_url',
      constraint: 'format',
    })
}
