import type { PluginInstance } from '../../../core/plugin-api.js'
import { HttpError, Single } from '../../../core/plugin-api.js'
import { IndexState, SemanticList, SemanticQuery } from '../schemas.js'
import type { Indexer } from '../semantic/indexer.js'
import type { semanticSearch } from '../semantic/search.js'
import { SEMANTIC_TYPES, type SemanticType } from '../semantic/text.js'
import type { SettingsStore } from '../settings.js'

const NO_SETTINGS = 'No AI settings: semantic search embeds through your provider; set one with PUT /api/v1/ai/settings'

/** Semantic search and its index (pro). */
export async function semanticRoutes(
  app: PluginInstance,
  deps: { settings: SettingsStore; indexer: Indexer; search: ReturnType<typeof semanticSearch> },
) {
  const { settings, indexer, search } = deps

  app.post(
    '/ai/reindex',
    {
      schema: {
        summary: 'Rebuild your semantic index (in the background)',
        description:
          'Embeds every note, contact and event that changed since it was embedded; progress at GET /api/v1/ai/index. A running reindex is not restarted.',
        tags: ['ai'],
        response: { 202: Single(IndexState) },
      },
      config: { tier: 'pro', errors: ['UNPROCESSABLE'] },
    },
    async (req, reply) => {
      if (!settings.has(req.userId)) throw new HttpError('UNPROCESSABLE', NO_SETTINGS)
      reply.code(202)
      return indexer.reindex(req.userId)
    },
  )

  app.get(
    '/ai/index',
    {
      schema: { summary: 'Progress and size of your semantic index', tags: ['ai'], response: { 200: Single(IndexState) } },
      config: { tier: 'pro' },
    },
    async (req) => indexer.state(req.userId),
  )

  app.get(
    '/search/semantic',
    {
      schema: {
        summary: 'Search notes, contacts, events and tasks by meaning',
        description:
          'Ranks by cosine similarity between the query and each record, embedded by your AI provider; `mode=hybrid` blends it with the full-text rank (½ cosine + ½ · 1/(1+full-text position)). When the provider cannot embed the query the answer is the full-text ranking, `meta.fallback: true` and `meta.note` saying why. 422 without AI settings.',
        tags: ['search'],
        querystring: SemanticQuery,
        response: { 200: SemanticList },
      },
      config: { tier: 'pro', scope: 'records', envelope: 'none', errors: ['UNPROCESSABLE'] },
    },
    async (req) => {
      const q = req.query
      const types = q.types ? ([...new Set(q.types.split(','))] as SemanticType[]) : [...SEMANTIC_TYPES]
      const { items, meta } = await search(req.userId, { q: q.q, types, limit: q.limit, offset: q.offset, mode: q.mode ?? 'semantic' })
      return { data: items, meta, tier: req.auth.tier }
    },
  )
}
