/**
 * What a systemd service unit gives its process's environment: the `Environment=` assignments
 * and the `EnvironmentFile=` list of its [Service] section, across the unit and its drop-ins in
 * order (later assignments win; an empty value resets the list, as systemd does).
 * Quoting follows systemd's: words are split on whitespace, "double" and 'single' quotes group,
 * a backslash escapes the next character. Specifiers (%h) and variables are not expanded.
 */
export interface UnitEnvironment {
  environment: Record<string, string>
  /** In order; `optional` for a path written with a leading "-" (a missing file is no error). */
  environmentFiles: Array<{ path: string; optional: boolean }>
}

/** Splits a systemd value into words. */
export function unitWords(value: string): string[] {
  const words: string[] = []
  let word = ''
  let inWord = false
  let quote = ''
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string
    if (c === '\\' && i + 1 < value.length) {
      word += value[++i]
      inWord = true
    } else if (quote) {
      if (c === quote) quote = ''
      else word += c
    } else if (c === '"' || c === "'") {
      quote = c
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += c
      inWord = true
    }
  }
  if (inWord) words.push(word)
  return words
}

/** The [Service] section's `key=value` lines of one unit file, in order (continuation lines joined). */
function serviceLines(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = []
  let section = ''
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/)
  for (const raw of lines) {
    const line = raw.trim()
    if (!line || line.startsWith('#') || line.startsWith(';')) continue
    if (line.startsWith('[')) {
      section = line
      continue
    }
    const eq = line.indexOf('=')
    if (section !== '[Service]' || eq < 1) continue
    out.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()])
  }
  return out
}

/** The environment settings of a unit: `texts` are the unit file and then its drop-ins, in order. */
export function unitEnvironment(texts: string[]): UnitEnvironment {
  let environment: Record<string, string> = {}
  let environmentFiles: UnitEnvironment['environmentFiles'] = []
  for (const text of texts)
    for (const [key, value] of serviceLines(text)) {
      if (key === 'Environment') {
        if (!value) environment = {}
        for (const word of unitWords(value)) {
          const eq = word.indexOf('=')
          if (eq > 0) environment[word.slice(0, eq)] = word.slice(eq + 1)
        }
      } else if (key === 'EnvironmentFile') {
        if (!value) environmentFiles = []
        for (const word of unitWords(value))
          environmentFiles.push(word.startsWith('-') ? { path: word.slice(1), optional: true } : { path: word, optional: false })
      }
    }
  return { environment, environmentFiles }
}
