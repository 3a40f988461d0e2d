import { definePlugin } from '../../core/plugin-api.js'
import type { RecordsPluginService } from '../records/public.js'
import { AiConfig } from './config.js'
import type { AiPluginService } from './public.js'
import { semanticRoutes } from './routes/semantic.js'
import { settingsRoutes } from './routes/settings.js'
import { createIndexer } from './semantic/indexer.js'
import { semanticSearch } from './semantic/search.js'
import { loadVectorExtension, vectorStore } from './semantic/store.js'
import { settingsStore } from './settings.js'

/** Bring-your-own AI keys (free and pro) and semantic search over records (pro). */
export default definePlugin(
  {
    name: 'ai',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'AI provider settings (bring your own key) and semantic search',
    dependencies: ['records'],
    prefix: '',
    migrations: new URL('./migrations/', import.meta.url),
    config: AiConfig,
    tags: {
      ai: 'Bring-your-own AI provider settings and the semantic index',
      search: 'Semantic search over notes, contacts, events and tasks',
    },
  },
  async (app, api) => {
    const { service: records } = api.services.get<RecordsPluginService>('records')
    const settings = settingsStore(api.db, api.secrets, api.config, api.now)
    const vectors = vectorStore(
      api.db,
      loadVectorExtension(api.db, api.config.vectorSearch, (m) => api.log.warn(m)),
    )
    const indexer = createIndexer({
      db: api.db,
      records,
      settings,
      vectors,
      config: api.config,
      log: api.log,
      now: api.now,
      on: (pattern, fn) => api.events.on(pattern, fn),
    })
    api.onClose(async () => {
      indexer.close()
      await indexer.idle()
    })
    api.services.provide<AiPluginService>({ clientFor: (userId) => settings.client(userId) })

    await settingsRoutes(app, { settings, indexer, now: api.now })
    await semanticRoutes(app, { settings, indexer, search: semanticSearch({ records, settings, vectors, indexer }) })
  },
)
