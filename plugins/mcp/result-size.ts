import { runSteps, type Steps } from '../../lib/paced-stream.js'

/**
 * One tool result is at most RESULT_LIMIT bytes as written in the JSON-RPC answer, its
 * `structuredContent` and the same JSON as text together. The list tools ask their REST routes for
 * pages small enough (`listBudget`), so a result is cut only when one record alone is larger:
 * then items are dropped from the end of the longest list (its `next_offset` says where to go on)
 * and, when a single record still does not fit, its longest texts are shortened and named in
 * `truncated`, so an agent knows what it did not see.
 */
export const RESULT_LIMIT = 1024 * 1024

/** The text block repeats the structured JSON (escaped once more): a result is at most about three times it. */
const TEXT_FACTOR = 3
/** The bytes of the result around the two copies: keys, the text block's type, isError. */
const FRAME = 256

/** The byte budget a list tool gives each REST page it reads, `parts` pages to one result. */
export function listBudget(parts: number): number {
  return Math.floor((RESULT_LIMIT - FRAME) / TEXT_FACTOR / parts)
}

/** The result's bytes as the JSON-RPC answer writes it: the structured JSON plus its text, escaped. */
export function resultBytes(structured: Record<string, unknown>): number {
  const json = JSON.stringify(structured)
  const bytes = Buffer.byteLength(json)
  return bytes + escapedBytes(json, bytes) + FRAME
}

/**
 * The bytes of `JSON.stringify(json)` for a JSON text of `bytes` bytes, counted instead of written:
 * a JSON text holds no raw control character, so only its quotes and backslashes gain one each.
 */
function escapedBytes(json: string, bytes: number): number {
  let extra = 2
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (c === 34 || c === 92) extra++
  }
  return bytes + extra
}

interface Page {
  items: unknown[]
  total?: number
  offset?: number
  next_offset?: number
}

const isPage = (v: unknown): v is Page => typeof v === 'object' && v !== null && Array.isArray((v as Page).items)

/** The pages of a result: the result itself (calendar) or one per type (search). */
function pagesOf(structured: Record<string, unknown>): Page[] {
  if (isPage(structured)) return [structured]
  return Object.values(structured).filter(isPage)
}

/** Where the next page starts, when there is one: `offset + items.length`. */
export function markNext(page: Page, offset: number): void {
  const next = offset + page.items.length
  if (page.total !== undefined && next < page.total) page.next_offset = next
  else delete page.next_offset
}

/** Cuts `structured` (already the agent's answer) until its result fits RESULT_LIMIT; returns it. */
export function fitResult(structured: Record<string, unknown>, offsetOf: (page: Page) => number): Record<string, unknown> {
  return runSteps(fitResultSteps(structured, offsetOf))
}

/** The same as steps: each measurement of a result near a megabyte is a step (paced by the caller). */
export function* fitResultSteps(structured: Record<string, unknown>, offsetOf: (page: Page) => number): Steps<Record<string, unknown>> {
  if (resultBytes(structured) <= RESULT_LIMIT) return structured
  const pages = pagesOf(structured)
  for (;;) {
    yield
    const longest = pages.reduce<Page | undefined>(
      (a, p) => (p.items.length > 1 && (!a || p.items.length > a.items.length) ? p : a),
      undefined,
    )
    if (!longest) break
    longest.items.pop()
    markNext(longest, offsetOf(longest))
    if (resultBytes(structured) <= RESULT_LIMIT) return structured
  }
  return yield* shortenTexts(structured)
}

/**
 * The longest strings shortened until the result fits; their paths go into `truncated`. Each
 * character cut saves at least two bytes (it is written twice), so one cut of the excess over
 * two usually suffices: a few measurements, not one per halving.
 */
function* shortenTexts(structured: Record<string, unknown>): Steps<Record<string, unknown>> {
  const cut = new Set<string>()
  structured.truncated = { fields: [], message: TRUNCATED }
  for (let round = 0, bytes = resultBytes(structured); round < 32 && bytes > RESULT_LIMIT; round++, bytes = resultBytes(structured)) {
    yield
    const found = longestString(structured, '')
    if (!found || found.value.length < 64) break
    const keep = Math.max(0, found.value.length - Math.ceil((bytes - RESULT_LIMIT) / 2) - 64)
    found.holder[found.key] = `${found.value.slice(0, keep)}…`
    cut.add(found.path)
    structured.truncated = { fields: [...cut], message: TRUNCATED }
  }
  return structured
}

const TRUNCATED = `This result passed ${RESULT_LIMIT} bytes, the most one tool result holds: the texts named in fields were shortened (they end with …). The record is larger than an agent can read in one call.`

interface Found {
  holder: Record<string, unknown>
  key: string
  value: string
  path: string
}

function longestString(value: unknown, path: string, depth = 0): Found | undefined {
  if (typeof value !== 'object' || value === null || depth > 16) return undefined
  let best: Found | undefined
  for (const [key, v] of Object.entries(value)) {
    const here = path ? `${path}.${key}` : key
    const found =
      typeof v === 'string' ? { holder: value as Record<string, unknown>, key, value: v, path: here } : longestString(v, here, depth + 1)
    if (found && (!best || found.value.length > best.value.length)) best = found
  }
  return best
}
