/**
 * The YAML subset Markdown front matter uses in practice (Obsidian, Jekyll,
 * Hugo, Bear exports): block mappings and sequences by indentation, flow
 * `[...]`/`{...}` collections, single/double-quoted and plain scalars, `|`
 * and `>` block scalars, comments. Anchors, tags and multi-documents are
 * refused with a clear error. Hearth writes JSON-style flow values, which
 * every YAML reader accepts.
 */

type Value = unknown
interface Line {
  indent: number
  text: string
  no: number
}

export function parseYaml(source: string, firstLine = 1): Record<string, Value> {
  const lines: Line[] = []
  source.split(/\r\n|\n|\r/).forEach((raw, i) => {
    const text = raw.trimEnd()
    if (text.trim() === '' || text.trim().startsWith('#')) return
    lines.push({ indent: text.length - text.trimStart().length, text: text.trim(), no: firstLine + i })
  })
  const state = { i: 0 }
  if (lines.length === 0) return {}
  const value = block(lines, state, lines[0].indent)
  if (state.i < lines.length) throw new Error(`line ${lines[state.i].no}: unexpected indentation`)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('front matter must be a mapping')
  return value as Record<string, Value>
}

function block(lines: Line[], state: { i: number }, indent: number): Value {
  const first = lines[state.i]
  if (first.text.startsWith('- ') || first.text === '-') {
    const list: Value[] = []
    while (state.i < lines.length && lines[state.i].indent === indent && /^-( |$)/.test(lines[state.i].text)) {
      const line = lines[state.i]
      const rest = line.text.slice(1).trim()
      state.i++
      list.push(rest === '' ? nested(lines, state, indent) : scalarOrFlow(rest, line.no))
    }
    return list
  }
  const map: Record<string, Value> = {}
  while (state.i < lines.length && lines[state.i].indent === indent) {
    const line = lines[state.i]
    const m = splitKey(line.text)
    if (!m) throw new Error(`line ${line.no}: expected "key: value"`)
    const key = String(scalarOrFlow(m.key, line.no))
    const rest = m.rest.trim()
    state.i++
    if (rest === '|' || rest === '>' || /^[|>][+-]?$/.test(rest)) map[key] = blockScalar(lines, state, indent, rest)
    else map[key] = rest === '' ? nested(lines, state, indent) : scalarOrFlow(rest, line.no)
  }
  return map
}

/**
 * `key: rest` with a plain, "double" or 'single' quoted key; the colon must end the line or be followed
 * by white space. A single left-to-right scan: the equivalent regex backtracks quadratically.
 */
export function splitKey(text: string): { key: string; rest: string } | null {
  const quote = text[0]
  if (quote === '"' || quote === "'") {
    let i = 1
    for (; i < text.length; i++) {
      if (quote === '"' && text[i] === '\\') i++
      else if (text[i] === quote && quote === "'" && text[i + 1] === "'") i++
      else if (text[i] === quote) break
    }
    const colon = afterSpaces(text, i + 1)
    const quoted = i < text.length ? keyEnd(text, text.slice(0, i + 1), colon) : null
    if (quoted) return quoted
  }
  let colon = 0
  while (colon < text.length && text[colon] !== ':' && text[colon] !== '#') colon++
  const key = text.slice(0, colon).trimEnd()
  return key === '' ? null : keyEnd(text, key, colon)
}

function afterSpaces(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i])) i++
  return i
}

function keyEnd(text: string, key: string, colon: number): { key: string; rest: string } | null {
  if (text[colon] !== ':') return null
  const next = text[colon + 1]
  if (next !== undefined && !/\s/.test(next)) return null
  return { key, rest: text.slice(colon + 1) }
}

/** The value on the following, deeper-indented lines; null when there are none. Sequences may sit at the key's indent. */
function nested(lines: Line[], state: { i: number }, indent: number): Value {
  const next = lines[state.i]
  if (!next) return null
  if (next.indent > indent || (next.indent === indent && /^-( |$)/.test(next.text) && !isSequenceLevel(lines, state.i, indent))) {
    return block(lines, state, next.indent)
  }
  return null
}

/** True when `i` is an item of a sequence that itself sits at `indent` (so it is not ours to take). */
function isSequenceLevel(lines: Line[], i: number, indent: number): boolean {
  for (let j = i - 1; j >= 0; j--) if (lines[j].indent === indent) return /^-( |$)/.test(lines[j].text)
  return false
}

function blockScalar(lines: Line[], state: { i: number }, indent: number, header: string): string {
  const taken: Line[] = []
  while (state.i < lines.length && lines[state.i].indent > indent) taken.push(lines[state.i++])
  if (taken.length === 0) return ''
  const base = taken[0].indent
  const parts = taken.map((l) => ' '.repeat(l.indent - base) + l.text)
  const text = header.startsWith('|') ? parts.join('\n') : parts.join(' ')
  return header.endsWith('-') ? text : `${text}\n`
}

function scalarOrFlow(text: string, no: number): Value {
  const t = stripComment(text).trim()
  if (/^[&*!]/.test(t)) throw new Error(`line ${no}: YAML anchors, aliases and tags are not supported`)
  if (t.startsWith('[') || t.startsWith('{')) {
    const parser = new FlowParser(t, no)
    const value = parser.value()
    parser.end()
    return value
  }
  return scalar(t, no)
}

function stripComment(text: string): string {
  if (text.startsWith('"') || text.startsWith("'")) return text
  const hash = text.search(/\s#/)
  return hash >= 0 ? text.slice(0, hash) : text
}

function scalar(t: string, no: number): Value {
  if (t.startsWith('"')) {
    if (!t.endsWith('"') || t.length < 2) throw new Error(`line ${no}: unterminated double-quoted string`)
    try {
      return JSON.parse(t.replace(/\\'/g, "'").replace(/\t/g, '\\t'))
    } catch {
      throw new Error(`line ${no}: invalid escape in double-quoted string`)
    }
  }
  if (t.startsWith("'")) {
    if (!t.endsWith("'") || t.length < 2) throw new Error(`line ${no}: unterminated single-quoted string`)
    return t.slice(1, -1).replace(/''/g, "'")
  }
  if (t === '' || t === '~' || t === 'null' || t === 'Null' || t === 'NULL') return null
  if (/^(true|True|TRUE)$/.test(t)) return true
  if (/^(false|False|FALSE)$/.test(t)) return false
  if (/^[-+]?(\d+|\d*\.\d+)([eE][-+]?\d+)?$/.test(t)) return Number(t)
  return t
}

/** JSON-like flow collections with YAML's plain (unquoted) scalars allowed. */
class FlowParser {
  private i = 0
  constructor(
    private readonly s: string,
    private readonly no: number,
  ) {}

  value(): Value {
    this.ws()
    const c = this.s[this.i]
    if (c === '[') return this.seq()
    if (c === '{') return this.map()
    return this.item(/[,\]}]/)
  }

  end(): void {
    this.ws()
    if (this.i < this.s.length) this.fail('unexpected text after the value')
  }

  private seq(): Value[] {
    this.i++
    const out: Value[] = []
    for (;;) {
      this.ws()
      if (this.s[this.i] === ']') return (this.i++, out)
      out.push(this.value())
      this.ws()
      if (this.s[this.i] === ',') this.i++
      else if (this.s[this.i] !== ']') this.fail('expected , or ]')
    }
  }

  private map(): Record<string, Value> {
    this.i++
    const out: Record<string, Value> = {}
    for (;;) {
      this.ws()
      if (this.s[this.i] === '}') return (this.i++, out)
      const key = String(this.item(/[:,}]/))
      this.ws()
      if (this.s[this.i] !== ':') this.fail('expected :')
      this.i++
      out[key] = this.value()
      this.ws()
      if (this.s[this.i] === ',') this.i++
      else if (this.s[this.i] !== '}') this.fail('expected , or }')
    }
  }

  /** A quoted string, or a plain scalar up to a stop character. */
  private item(stop: RegExp): Value {
    this.ws()
    const start = this.i
    const q = this.s[this.i]
    if (q === '"' || q === "'") {
      this.i++
      for (;;) {
        if (this.i >= this.s.length) this.fail('unterminated string')
        const c = this.s[this.i]
        if (q === '"' && c === '\\') this.i += 2
        else if (c === q && q === "'" && this.s[this.i + 1] === "'") this.i += 2
        else if (c === q) break
        else this.i++
      }
      this.i++
      return scalar(this.s.slice(start, this.i), this.no)
    }
    while (this.i < this.s.length && !stop.test(this.s[this.i])) this.i++
    if (this.i >= this.s.length) this.fail('unterminated collection')
    return scalar(this.s.slice(start, this.i).trim(), this.no)
  }

  private ws(): void {
    while (/\s/.test(this.s[this.i] ?? '')) this.i++
  }

  private fail(message: string): never {
    throw new Error(`line ${this.no}: ${message}`)
  }
}

/** Serializes a flat mapping as `key: <JSON>` lines: JSON values are valid YAML flow values. */
export function stringifyYaml(map: Record<string, Value>): string {
  return Object.entries(map)
    .map(([key, value]) => `${/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : JSON.stringify(key)}: ${JSON.stringify(value)}`)
    .join('\n')
}
