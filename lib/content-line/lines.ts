/**
 * The line grammar vCard (RFC 6350/2426) and iCalendar (RFC 5545) share:
 * folded lines, `group.NAME;PARAM=a,b:value`, text escaping and RFC 6868
 * parameter escaping. lib/ical and lib/vcard build on these helpers; components.ts groups the
 * lines into BEGIN/END blocks.
 */

export interface ContentLine {
  /** 1-based line number of the line's first physical line in the file. */
  line: number
  group: string | null
  /** Upper-cased property name. */
  name: string
  /** Upper-cased parameter names; values as written (unquoted, RFC 6868 decoded). */
  params: Map<string, string[]>
  value: string
}

/**
 * Joins folded lines (a line starting with a space or tab continues the previous one). Linear: each
 * logical line collects its pieces and is joined once (growing a string per continuation line and
 * re-testing it made a folded 1.6 MB PHOTO quadratic).
 */
export function unfold(text: string): Array<{ line: number; text: string }> {
  const physical = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split(/\r\n|\n|\r/)
  const out: Array<{ line: number; text: string }> = []
  let pieces: string[] = []
  let first = 0
  // vCard 2.1 quoted-printable: a value ending in '=' continues on the next line as is.
  let quotedPrintable = false
  const flush = (): void => {
    if (pieces.length > 0) out.push({ line: first, text: pieces.join('') })
    pieces = []
  }
  physical.forEach((raw, i) => {
    const last = pieces.length > 0 ? pieces[pieces.length - 1] : null
    if (last !== null && quotedPrintable && last.endsWith('=')) {
      pieces[pieces.length - 1] = last.slice(0, -1)
      pieces.push(raw)
    } else if (last !== null && (raw.startsWith(' ') || raw.startsWith('\t'))) {
      pieces.push(raw.slice(1))
    } else {
      flush()
      if (raw.trim() === '') return
      first = i + 1
      pieces.push(raw)
      quotedPrintable = QUOTED_PRINTABLE.test(propertyPart(raw))
    }
  })
  flush()
  return out
}

/** The part of a content line before its value (bounded work for the quoted-printable test). */
function propertyPart(line: string): string {
  const colon = line.indexOf(':')
  return colon < 0 ? line : line.slice(0, colon + 1)
}

const QUOTED_PRINTABLE = /^[^:]*;ENCODING=QUOTED-PRINTABLE[;:]/i

/** Folds one logical line so no physical line exceeds 75 octets, never splitting a UTF-8 character. */
export function fold(line: string): string {
  const parts: string[] = []
  let current = ''
  let octets = 0
  let limit = 75
  for (const char of line) {
    const size = Buffer.byteLength(char)
    if (octets + size > limit) {
      parts.push(current)
      current = ''
      octets = 0
      limit = 74 // continuation lines carry a leading space
    }
    current += char
    octets += size
  }
  parts.push(current)
  return parts.join('\r\n ')
}

/** Splits `group.NAME;P=v;Q="a:b",c:value` into its parts; throws on a line without a colon. */
export function parseContentLine(line: number, text: string): ContentLine {
  let i = 0
  const nameMatch = /^([A-Za-z0-9-]+\.)?([A-Za-z0-9-]+)/.exec(text)
  if (!nameMatch) throw new Error(`line ${line}: not a content line`)
  const group = nameMatch[1] ? nameMatch[1].slice(0, -1) : null
  const name = nameMatch[2].toUpperCase()
  i = nameMatch[0].length
  const params = new Map<string, string[]>()
  while (text[i] === ';') {
    i++
    const eq = /^[A-Za-z0-9-]+/.exec(text.slice(i))
    if (!eq) throw new Error(`line ${line}: malformed parameter`)
    let pname = eq[0].toUpperCase()
    i += eq[0].length
    const values: string[] = []
    if (text[i] === '=') {
      i++
      for (;;) {
        if (text[i] === '"') {
          const end = text.indexOf('"', i + 1)
          if (end < 0) throw new Error(`line ${line}: unterminated quoted parameter`)
          values.push(decodeParam(text.slice(i + 1, end)))
          i = end + 1
        } else {
          const m = /^[^;:,]*/.exec(text.slice(i))
          values.push(decodeParam(m ? m[0] : ''))
          i += m ? m[0].length : 0
        }
        if (text[i] !== ',') break
        i++
      }
    } else {
      // vCard 2.1 style bare parameter (TEL;CELL:...): a TYPE value.
      values.push(pname)
      pname = 'TYPE'
    }
    // Appended in place: copying the list per parameter made `TEL;CELL;CELL;...` quadratic.
    const known = params.get(pname)
    if (known) for (const v of values) known.push(v)
    else params.set(pname, values)
  }
  if (text[i] !== ':') throw new Error(`line ${line}: expected ':' after ${name}`)
  return { line, group, name, params, value: text.slice(i + 1) }
}

/** RFC 6868: ^n newline, ^' double quote, ^^ caret. */
function decodeParam(value: string): string {
  return value.replace(/\^([n'^])/g, (_, c: string) => (c === 'n' ? '\n' : c === "'" ? '"' : '^'))
}

/** Encodes a parameter value, quoting it when it holds a separator. */
export function encodeParam(value: string): string {
  const encoded = withoutControls(
    value
      .replace(/\^/g, '^^')
      .replace(/\r\n|\n|\r/g, '^n')
      .replace(/"/g, "^'"),
  )
  return /[;:,\s]/.test(encoded) ? `"${encoded}"` : encoded
}

/** TEXT escaping: backslash, semicolon, comma and newline. */
export function escapeText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\n|\r/g, '\\n')
}

export function unescapeText(value: string): string {
  return value.replace(/\\([\\;,nN:])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c))
}

/** Splits on an unescaped separator (';' for structured values, ',' for lists) and unescapes each part. */
export function splitEscaped(value: string, separator: ';' | ','): string[] {
  const parts: string[] = []
  let current = ''
  for (let i = 0; i < value.length; i++) {
    const c = value[i]
    if (c === '\\' && i + 1 < value.length) {
      current += c + value[i + 1]
      i++
    } else if (c === separator) {
      parts.push(current)
      current = ''
    } else {
      current += c
    }
  }
  parts.push(current)
  return parts.map(unescapeText)
}

/** Builds one folded content line from a name, parameters and an already escaped value. */
export function contentLine(name: string, params: Array<[string, string | string[]]>, value: string): string {
  const paramText = params.map(([key, v]) => `;${key}=${(Array.isArray(v) ? v : [v]).map(encodeParam).join(',')}`).join('')
  return fold(`${name}${paramText}:${withoutControls(value)}`)
}

/**
 * Values reach here escaped (TEXT) or validated (addresses, dates); dropping any control character left
 * is the last guard: a raw CR or LF would end the line and let a value forge properties or components.
 */
function withoutControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '')
}

/** Lower-cased values of a parameter (TYPE=WORK,pref → ['work','pref']). */
export function paramValues(cl: ContentLine, name: string): string[] {
  return (cl.params.get(name) ?? []).flatMap((v) => v.split(',')).map((v) => v.trim().toLowerCase())
}
