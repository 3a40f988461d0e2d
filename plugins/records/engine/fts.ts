/**
 * Turns whatever a user typed into a safe FTS5 MATCH expression.
 *
 * FTS5 has its own query language (quotes, `*`, `NEAR(`, `col:`, `AND/OR/NOT`,
 * brackets, `^`); any of it in user text would either raise a syntax error or
 * change the meaning. So the text is cut into words (letters and digits, as
 * the unicode61 tokenizer sees them), each word becomes a quoted string with a
 * prefix star ("meet" finds "meeting"), and the words are ANDed. Operators
 * typed by the user are thereby searched for as plain words.
 */

const WORD = /[\p{L}\p{N}\p{M}]+/gu

/** More words than this add nothing but cost. */
const MAX_WORDS = 16
const MAX_WORD_LENGTH = 64

/** The MATCH expression, or null when the text holds no word at all (nothing can match). */
export function ftsQuery(text: string): string | null {
  const words = (text.normalize('NFC').match(WORD) ?? []).slice(0, MAX_WORDS)
  if (words.length === 0) return null
  // A word never contains '"', so wrapping it in quotes is always well-formed.
  return words.map((w) => `"${w.slice(0, MAX_WORD_LENGTH)}"*`).join(' ')
}

/**
 * The term naming a record's owner in the `owner` column of the full-text indexes: 'u' and the hex
 * of their id's UTF-8 bytes, as migration 014's triggers write it (`'u' || hex(user_id)`): one
 * token under unicode61 whatever the id holds (hex case folds like every token).
 */
export function ownerTerm(ownerId: string): string {
  return `u${Buffer.from(ownerId, 'utf8').toString('hex')}`
}

/**
 * A search expression: the words, matched outside the owner column (no word reaches an owner term,
 * whatever it spells), and, given `owners`, ANDed with their terms, so that FTS5 walks the
 * intersection of the doclists instead of every match in the household.
 */
export function ownedMatch(match: string, owners: readonly string[] | null): string {
  const words = `-{owner} : (${match})`
  if (owners === null) return words
  const terms = [...new Set(owners)].sort().map((o) => `"${ownerTerm(o)}"`)
  return `${words} AND {owner} : (${terms.join(' OR ')})`
}
