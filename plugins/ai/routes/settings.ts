import { Type } from '@sinclair/typebox'
import type { PluginInstance } from '../../../core/plugin-api.js'
import { HttpError, Single } from '../../../core/plugin-api.js'
import { ProviderError } from '../provider/http.js'
import { AiSettings, AiSettingsBody, AiTestResult } from '../schemas.js'
import type { Indexer } from '../semantic/indexer.js'
import type { SettingsStore } from '../settings.js'

/** Bring-your-own AI keys: free and pro users alike (docs/api.md). */
export async function settingsRoutes(app: PluginInstance, deps: { settings: SettingsStore; indexer: Indexer; now: () => number }) {
  const { settings, indexer } = deps

  app.get(
    '/ai/settings',
    {
      schema: {
        summary: 'Your AI provider settings (the key is never returned: `configured` says one is stored)',
        tags: ['ai'],
        response: { 200: Single(AiSettings) },
      },
    },
    async (req) => settings.view(req.userId),
  )

  app.put(
    '/ai/settings',
    {
      schema: {
        summary: 'Set your AI provider, models and key',
        description:
          'The key is stored encrypted with the instance key. `base_url` is for admins only (the daemon calls it): others get 403 FORBIDDEN and use the instance URL of the provider. Changing the provider, embedding model or URL rebuilds an existing semantic index.',
        tags: ['ai'],
        body: AiSettingsBody,
        response: { 200: Single(AiSettings) },
      },
      config: { errors: ['FORBIDDEN'] },
    },
    async (req) => {
      const isAdmin = req.auth.role === 'admin' || req.auth.role === 'owner'
      const { view, embeddingsChanged } = settings.put(req.userId, req.body, isAdmin)
      if (embeddingsChanged) indexer.settingsChanged(req.userId)
      return view
    },
  )

  app.delete(
    '/ai/settings',
    {
      schema: {
        summary: 'Remove your AI settings, key and semantic index',
        tags: ['ai'],
        response: { 200: Single(Type.Object({ deleted: Type.Boolean({ description: 'false: there were none' }) })) },
      },
    },
    async (req) => {
      const deleted = settings.remove(req.userId)
      indexer.forget(req.userId)
      return { deleted }
    },
  )

  app.post(
    '/ai/settings/test',
    {
      schema: {
        summary: 'Check your AI settings with one real embeddings call',
        description: 'Answers 200 with `ok: false` and the reason (key redacted) when the provider fails; 422 without settings.',
        tags: ['ai'],
        response: { 200: Single(AiTestResult) },
      },
      config: { errors: ['UNPROCESSABLE'] },
    },
    async (req) => {
      const client = settings.client(req.userId)
      if (!client) throw new HttpError('UNPROCESSABLE', 'No AI settings to test: set them with PUT /api/v1/ai/settings first')
      const started = performance.now()
      const result = {
        ok: true,
        provider: client.provider,
        embedding_model: client.embeddingModel,
        dimensions: null as number | null,
        error: null as string | null,
      }
      try {
        const [vector] = await client.embed(['Hearth connection test'])
        result.dimensions = vector.length
      } catch (err) {
        if (!(err instanceof ProviderError)) throw err
        result.ok = false
        result.error = err.message
      }
      return { ...result, latency_ms: Math.round(performance.now() - started) }
    },
  )
}
