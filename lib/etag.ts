/**
 * Entity tags and the two conditional request headers that name them (RFC 9110 §8.8.3, §13.1.1,
 * §13.1.2). If-Match compares strongly: a weak tag (W/"3") never matches, since a write must
 * replace exactly the representation the client read. If-None-Match compares weakly: W/"3" names
 * the same resource state as "3", so "do not overwrite what exists" holds for both.
 */
export interface EntityTag {
  weak: boolean
  /** The quoted part, quotes included: `"3"`. */
  opaque: string
}

/** One entity tag (`"x"` or `W/"x"`), or null when the text is not one. */
export function parseEntityTag(text: string): EntityTag | null {
  const list = entityTags(text)
  return list !== '*' && list.length === 1 && list[0] ? list[0] : null
}

/**
 * A header's list: `*`, or its entity tags in order. One pass, no backtracking; an opaque tag
 * may hold a comma (etagc allows it), so the list is read quote to quote, not split on commas.
 * Members that are not entity tags are skipped: they name nothing. A list holding `*` among tags
 * is read as `*`, as clients that write one mean it.
 */
export function entityTags(header: string): '*' | EntityTag[] {
  const tags: EntityTag[] = []
  let i = 0
  while (i < header.length) {
    const c = header[i]
    if (c === ',' || c === ' ' || c === '\t') {
      i++
      continue
    }
    const weak = header.startsWith('W/"', i)
    const open = weak ? i + 2 : i
    if (header[open] === '"') {
      const close = header.indexOf('"', open + 1)
      if (close < 0) break
      tags.push({ weak, opaque: header.slice(open, close + 1) })
      i = close + 1
      continue
    }
    const end = header.indexOf(',', i)
    const member = header.slice(i, end < 0 ? header.length : end).trim()
    if (member === '*') return '*'
    i = end < 0 ? header.length : end
  }
  return tags
}

export const strongMatch = (a: EntityTag, b: EntityTag): boolean => !a.weak && !b.weak && a.opaque === b.opaque
export const weakMatch = (a: EntityTag, b: EntityTag): boolean => a.opaque === b.opaque

/**
 * Whether If-Match holds for the current representation's tag (null: there is none): `*` when
 * one exists, otherwise a listed tag matches it strongly.
 */
export function ifMatchHolds(header: string, current: string | null): boolean {
  if (current === null) return false
  const listed = entityTags(header)
  if (listed === '*') return true
  const tag = parseEntityTag(current)
  return tag !== null && listed.some((t) => strongMatch(t, tag))
}

/**
 * Whether If-None-Match holds (the request may go ahead): `*` only when nothing exists,
 * otherwise no listed tag matches the current one weakly.
 */
export function ifNoneMatchHolds(header: string, current: string | null): boolean {
  if (current === null) return true
  const listed = entityTags(header)
  if (listed === '*') return false
  const tag = parseEntityTag(current)
  return tag === null || !listed.some((t) => weakMatch(t, tag))
}
