// Ranged lists of repeating records: each series' starts, less those its overrides replace, merged in order.
import { HttpError } from '../../../core/plugin-api.js'
import { mergeFirst } from '../../../lib/sorted-merge.js'
import type { WindowStarts } from './starts-cache.js'
import type { ListerParts, Ranked } from './list-types.js'
import type { ApiRecord, ListQuery, ResourceDefinition } from './types.js'

/** docs/api.md: a list expands at most this many occurrences per request; past that, 422. */
export const MAX_EXPANDED = 10_000

export function tooManyOccurrences(window: { from: number | null; to: number | null }): HttpError {
  const range = `${window.from === null ? 'the start' : new Date(window.from).toISOString()} to ${window.to === null ? 'a year later' : new Date(window.to).toISOString()}`
  return new HttpError(
    'UNPROCESSABLE',
    `the range ${range} holds more than ${MAX_EXPANDED} occurrences of repeating events: ask for a shorter range`,
    {
      field: 'from',
      constraint: 'max_occurrences',
    },
  )
}

/**
 * Series id → the starts its overrides replace (they list as plain records of their own). An
 * override is its series' owner's: asked of each owner among the series (their own index).
 */
export function overridden(
  parts: ListerParts,
  expansion: NonNullable<ResourceDefinition['expansion']>,
  series: Ranked[],
): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>()
  const spec = expansion.overrides
  if (!spec || series.length === 0) return out
  const byOwner = new Map<string, string[]>()
  for (const s of series) {
    const owner = String(s.record.owner_id)
    // Pushed, not spread into a new array: 2,500 series of one owner made 3 million copies a list.
    const ids = byOwner.get(owner)
    if (ids) ids.push(s.record.id as string)
    else byOwner.set(owner, [s.record.id as string])
  }
  const columns = `SELECT ${spec.seriesColumn} AS series, ${spec.startColumn} AS start FROM ${parts.def.name} WHERE user_id = ?`
  const everyOne = parts.prepare(`${columns} AND ${spec.seriesColumn} IS NOT NULL LIMIT ?`)
  const ofSeries = parts.prepare(`${columns} AND ${spec.seriesColumn} IN (SELECT value FROM json_each(?))`)
  for (const [owner, ids] of byOwner) {
    // An owner's overrides are usually few (none, often): all of them, from the overrides' index,
    // cost less than looking each series up (500 series: 0.5-1 ms); with as many as series, by series.
    let rows = everyOne.all(owner, ids.length + 1) as Array<{ series: string; start: string }>
    if (rows.length > ids.length) rows = ofSeries.all(owner, JSON.stringify(ids)) as typeof rows
    else if (rows.length > 0) {
      const asked = new Set(ids)
      rows = rows.filter((r) => asked.has(r.series))
    }
    for (const { series: id, start } of rows) {
      const set = out.get(id) ?? new Set<number>()
      set.add(Date.parse(start))
      out.set(id, set)
    }
  }
  return out
}

/** A series' starts in the window: those kept while it has not changed since, else expanded now (and kept). */
export function startsOf(
  parts: ListerParts,
  expansion: NonNullable<ResourceDefinition['expansion']>,
  record: ApiRecord,
  window: { from: number | null; to: number | null },
  kept: WindowStarts | null,
): { starts: Float64Array; computed: boolean } {
  const id = record.id as string
  const version = typeof record.etag === 'string' ? record.etag : null
  const hit = version === null ? undefined : kept?.get(id, version)
  if (hit) return { starts: hit, computed: false }
  // One more than a list may expand: enough to know when the window holds too many.
  const starts = Float64Array.from(expansion.starts(record, window, MAX_EXPANDED + 1))
  if (version !== null) kept?.keep(id, version, starts)
  return { starts, computed: true }
}

/**
 * The occurrences in the list's order, the k-th (k < `needed`) made when asked for. In the
 * expanded column's order (the usual one): the series' sorted starts merged as far as the page
 * needs (the sequence number breaks ties, as in SQL), never 10,000 items made and sorted for a
 * page of 20. In any other order: every occurrence made and sorted.
 */
export function ordered(
  parts: ListerParts,
  q: ListQuery,
  ranked: boolean,
  column: string,
  lists: Float64Array[],
  owners: Ranked[],
  compare: (a: Ranked, b: Ranked) => number,
  needed: number,
): (k: number) => Ranked {
  const make = (s: Ranked, at: number): Ranked => ({ ...s, at, sortValue: new Date(at).toISOString() })
  const key = q.sort ?? parts.def.sort.default
  // Instants and their ISO texts (four-digit years) sort alike: the numbers stand for the texts.
  if (!ranked && key === column && !parts.def.sort.nocase?.includes(key)) {
    const desc = (q.order ?? parts.def.sort.order) === 'desc'
    const merged = mergeFirst(
      lists,
      owners.map((s) => s.seq),
      needed,
      desc,
    )
    return (k) => {
      const l = merged.list[k]
      if (l === undefined || k >= merged.list.length) throw new Error('an occurrence past those merged was asked for')
      return make(owners[l] as Ranked, (lists[l] as Float64Array)[merged.index[k] as number] as number)
    }
  }
  const all: Ranked[] = []
  lists.forEach((starts, i) => {
    for (const at of starts) all.push(make(owners[i] as Ranked, at))
  })
  all.sort(compare)
  return (k) => all[k] as Ranked
}
