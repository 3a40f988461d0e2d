/**
 * GET /search/semantic: cosine ranking over the user's embeddings, optionally
 * blended with the full-text rank (mode=hybrid). When the provider cannot
 * embed the query, the answer is the full-text ranking with a note in meta.
 */
import { HttpError } from '../../../core/plugin-api.js'
import { dropEmpty, type RecordsService } from '../../records/public.js'
import { ProviderError } from '../provider/http.js'
import type { SettingsStore } from '../settings.js'
import type { Indexer } from './indexer.js'
import { byScore, type VectorStore } from './store.js'
import type { SemanticType } from './text.js'
import { roundScore as round } from './vectors.js'

export interface SemanticQuery {
  q: string
  types: SemanticType[]
  limit: number
  offset: number
  mode: 'semantic' | 'hybrid'
}

export interface SemanticHit {
  type: SemanticType
  id: string
  score: number
  record: Record<string, unknown>
}

export interface SemanticMeta {
  total: number
  limit: number
  offset: number
  mode: 'semantic' | 'hybrid' | 'fulltext'
  fallback: boolean
  note?: string
}

/** In hybrid mode: score = SEMANTIC_WEIGHT × cosine + (1 − SEMANTIC_WEIGHT) × 1/(1 + full-text position). */
export const SEMANTIC_WEIGHT = 0.5

export interface SemanticSearchDeps {
  records: RecordsService
  settings: SettingsStore
  vectors: VectorStore
  indexer: Indexer
}

export function semanticSearch(d: SemanticSearchDeps) {
  const compact = (userId: string, type: SemanticType, id: string): Record<string, unknown> | null => {
    try {
      const record = d.records.get(userId, type, id)
      return dropEmpty(d.records.definition(type).compact(record))
    } catch {
      return null
    }
  }

  /** Each type's full-text ranking, merged by position (the first of each type share the top). */
  const fulltext = (userId: string, q: SemanticQuery, depth: number): Map<string, { type: SemanticType; id: string; position: number }> => {
    const out = new Map<string, { type: SemanticType; id: string; position: number }>()
    for (const type of q.types) {
      const page = d.records.list(userId, type, { search: q.q, limit: Math.min(depth, 200), offset: 0 })
      page.items.forEach((item, position) => out.set(`${type}:${String(item.id)}`, { type, id: String(item.id), position }))
    }
    return out
  }

  const finish = (userId: string, ranked: Array<{ type: SemanticType; id: string; score: number }>, q: SemanticQuery) => {
    const items: SemanticHit[] = []
    for (const hit of ranked.slice(q.offset, q.offset + q.limit)) {
      const record = compact(userId, hit.type, hit.id)
      if (record) items.push({ ...hit, record })
      else d.vectors.remove(userId, hit.type, hit.id)
    }
    return items
  }

  const fallback = (userId: string, q: SemanticQuery, note: string) => {
    const hits = [...fulltext(userId, q, q.offset + q.limit).values()]
      .map((h) => ({ type: h.type, id: h.id, score: round(1 / (1 + h.position)) }))
      .sort(byScore)
    const meta: SemanticMeta = { total: hits.length, limit: q.limit, offset: q.offset, mode: 'fulltext', fallback: true, note }
    return { items: finish(userId, hits, q), meta }
  }

  return async function search(userId: string, q: SemanticQuery): Promise<{ items: SemanticHit[]; meta: SemanticMeta }> {
    const client = d.settings.client(userId)
    if (!client)
      throw new HttpError(
        'UNPROCESSABLE',
        'No AI settings: semantic search embeds through your provider; set one with PUT /api/v1/ai/settings',
        {
          field: 'ai_settings',
          constraint: 'required',
        },
      )
    if (!d.indexer.exists(userId)) {
      d.indexer.reindex(userId)
      return fallback(userId, q, 'The semantic index is being built (GET /api/v1/ai/index shows progress): full-text results meanwhile')
    }
    let vector: number[]
    try {
      ;[vector] = await client.embed([q.q])
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err
      return fallback(userId, q, `The AI provider could not embed the query (${err.message}): full-text results instead`)
    }
    const model = client.embeddingModel
    const depth = q.offset + q.limit
    const total = d.vectors.count(userId, model, q.types)
    if (q.mode === 'semantic') {
      const hits = d.vectors.nearest(userId, model, vector, q.types, depth)
      return { items: finish(userId, hits, q), meta: { total, limit: q.limit, offset: q.offset, mode: 'semantic', fallback: false } }
    }
    // Hybrid: the semantic and the full-text candidates, each scored on both scales.
    const candidates = Math.max(depth * 2, 50)
    const semantic = d.vectors.nearest(userId, model, vector, q.types, candidates)
    const text = fulltext(userId, q, candidates)
    const cosine = new Map(semantic.map((h) => [`${h.type}:${h.id}`, h.score]))
    const missing = [...text.values()].filter((h) => !cosine.has(`${h.type}:${h.id}`))
    for (const [key, score] of d.vectors.scores(userId, model, vector, missing)) cosine.set(key, score)
    const keys = new Map<string, { type: SemanticType; id: string }>()
    for (const h of [...semantic, ...text.values()]) keys.set(`${h.type}:${h.id}`, { type: h.type, id: h.id })
    const blended = [...keys].map(([key, h]) => {
      const pos = text.get(key)?.position
      const fts = pos === undefined ? 0 : 1 / (1 + pos)
      return { ...h, score: round(SEMANTIC_WEIGHT * (cosine.get(key) ?? 0) + (1 - SEMANTIC_WEIGHT) * fts) }
    })
    blended.sort(byScore)
    return {
      items: finish(userId, blended, q),
      meta: { total: Math.max(total, blended.length), limit: q.limit, offset: q.offset, mode: 'hybrid', fallback: false },
    }
  }
}
