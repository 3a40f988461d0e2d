import { type ContentLine, parseContentLine, unfold } from './lines.js'

export interface Component {
  name: string
  line: number
  properties: ContentLine[]
  components: Component[]
  /** Why the component cannot be used (a malformed line inside it, or no END). */
  broken?: string
}

/** VCALENDAR > VEVENT > VALARM is 3 deep; a deeper file is hostile or broken. */
const MAX_DEPTH = 8

/**
 * Groups content lines into BEGIN/END components. A malformed line breaks
 * the enclosing entry (the component at `entryDepth`: 0 for VCARD, 1 for
 * VEVENT) and is reported alone above that depth; a BEGIN of a component
 * that is still open closes it as broken (a missing END).
 */
export function parseComponents(text: string, entryDepth = 0): { roots: Component[]; errors: Array<{ line: number; error: string }> } {
  const roots: Component[] = []
  const errors: Array<{ line: number; error: string }> = []
  const stack: Component[] = []
  const breakEntry = (line: number, error: string) => {
    if (stack.length > entryDepth) stack[entryDepth].broken ??= error
    else errors.push({ line, error })
  }
  for (const { line, text: raw } of unfold(text)) {
    let cl: ContentLine
    try {
      cl = parseContentLine(line, raw)
    } catch (err) {
      breakEntry(line, (err as Error).message)
      continue
    }
    const kind = cl.value.trim().toUpperCase()
    if (cl.name === 'BEGIN') {
      const reopened = stack.findIndex((c) => c.name === kind)
      if (reopened >= 0) {
        for (const open of stack.splice(reopened)) open.broken ??= `BEGIN:${open.name} on line ${open.line} is never closed`
      }
      if (stack.length >= MAX_DEPTH) {
        breakEntry(line, `components nested deeper than ${MAX_DEPTH} levels`)
        continue
      }
      const component: Component = { name: kind, line, properties: [], components: [] }
      if (stack.length > 0) stack[stack.length - 1].components.push(component)
      else roots.push(component)
      stack.push(component)
    } else if (cl.name === 'END') {
      if (stack.length > 0 && stack[stack.length - 1].name === kind) stack.pop()
      else breakEntry(line, `END:${kind} without matching BEGIN`)
    } else if (stack.length > 0) {
      stack[stack.length - 1].properties.push(cl)
    } else {
      errors.push({ line, error: `${cl.name} outside of any BEGIN/END block` })
    }
  }
  // A missing END at the entry level breaks the entry; a missing END:VCALENDAR around complete events does not.
  for (const open of stack.slice(entryDepth)) open.broken ??= `BEGIN:${open.name} on line ${open.line} is never closed`
  return { roots, errors }
}
