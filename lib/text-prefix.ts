/**
 * The first `count` code points of `text` (a surrogate pair is one), reading no further than
 * them: `Array.from(text).slice(0, count)` splits the whole text first, 1 MB of it for a snippet.
 */
export function firstCodePoints(text: string, count: number): string {
  let end = 0
  for (let n = 0; n < count && end < text.length; n++) {
    const code = text.charCodeAt(end)
    const pair = code >= 0xd800 && code <= 0xdbff && end + 1 < text.length
    const low = pair ? text.charCodeAt(end + 1) : 0
    end += pair && low >= 0xdc00 && low <= 0xdfff ? 2 : 1
  }
  return text.slice(0, end)
}
