/**
 * Cuts a stream of text into lines as chunks arrive, in one pass: each byte is looked at once,
 * whatever the chunk sizes. A line longer than `maxLine` characters is dropped whole (counted in
 * `dropped`) instead of growing a buffer without bound: a tool that prints a megabyte without a
 * newline costs `maxLine` of memory, not a megabyte.
 */
export interface LineSplitter {
  push(chunk: string): void
  /** Hands over the last line when the text does not end with a newline. */
  end(): void
  readonly dropped: number
}

export function createLineSplitter(onLine: (line: string) => void, maxLine = 64 * 1024): LineSplitter {
  let partial = ''
  let overflow = false
  let dropped = 0
  const emit = (line: string) => {
    if (overflow) {
      dropped++
      overflow = false
      return
    }
    onLine(line.endsWith('\r') ? line.slice(0, -1) : line)
  }
  const keep = (text: string) => {
    if (overflow) return
    if (partial.length + text.length > maxLine) {
      overflow = true
      partial = ''
      return
    }
    partial += text
  }
  return {
    push(chunk) {
      let start = 0
      for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
        keep(chunk.slice(start, nl))
        emit(partial)
        partial = ''
        start = nl + 1
      }
      keep(chunk.slice(start))
    },
    end() {
      if (partial || overflow) emit(partial)
      partial = ''
    },
    get dropped() {
      return dropped
    },
  }
}
