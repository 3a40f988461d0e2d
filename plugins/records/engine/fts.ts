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
