/** Nesting past this depth counts nothing more: the figure stays a lower bound, and no stack is spent on it. */
const MAX_DEPTH = 32

/**
 * A lower bound of the UTF-8 length of `JSON.stringify(value)`, computed without writing the text:
 * a string counts its UTF-16 length (every unit takes at least one byte; escapes only add), so a
 * value whose bound already passes a budget is known not to fit before anything is serialized.
 */
export function jsonBytesAtLeast(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4
    case 'boolean':
      return value ? 4 : 5
    case 'bigint':
      return String(value).length
    case 'object': {
      if (value === null) return 4
      if (depth >= MAX_DEPTH) return 2
      if (Array.isArray(value)) {
        let n = 1 + Math.max(1, value.length)
        for (const item of value) n += jsonBytesAtLeast(item, depth + 1)
        return n
      }
      // The opening brace, then per entry its quoted key, colon, value and the comma or closing brace after it.
      let n = 1
      const entries = value as Record<string, unknown>
      for (const key in entries) {
        const item = entries[key]
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
        n += key.length + 4 + jsonBytesAtLeast(item, depth + 1)
      }
      return Math.max(n, 2)
    }
    default:
      return 0
  }
}
