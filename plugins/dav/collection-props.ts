import type { Kind } from './store.js'
import { child, childrenOf, is, NS, type PropResult, type XmlNode } from '../../lib/webdav-xml/index.js'

/**
 * The properties a client may set on a collection (PROPPATCH, RFC 4918 9.2; MKCALENDAR's and
 * extended MKCOL's DAV:set, RFC 4791 5.3.1 and RFC 5689): a calendar's or the address book's
 * name and description, a calendar's colour and order (Apple's, which iOS, macOS, DAVx⁵,
 * Thunderbird and GNOME read). Hearth keeps no other dead property: anything else is refused.
 */
export const MAX_DISPLAYNAME = 256
export const MAX_DESCRIPTION = 1024

/** A settable property: the collections it applies to and its value checked (null: refused). */
interface Settable {
  kinds: Kind[]
  check(value: string): string | null
}

/** What XML 1.0 cannot carry (a character reference can still name it): control characters, lone surrogates. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/u
const text = (max: number, nonEmpty: boolean) => (v: string) => (v.length > max || (nonEmpty && !v.trim()) || NOT_XML.test(v) ? null : v)
const COLOR = /^#[0-9A-Fa-f]{6}(?:[0-9A-Fa-f]{2})?$/
const ORDER = /^[+-]?[0-9]{1,9}$/

export const SETTABLE: Record<string, Settable> = {
  [`${NS.dav}displayname`]: { kinds: ['event', 'task', 'card'], check: text(MAX_DISPLAYNAME, true) },
  [`${NS.caldav}calendar-description`]: { kinds: ['event', 'task'], check: text(MAX_DESCRIPTION, false) },
  [`${NS.carddav}addressbook-description`]: { kinds: ['card'], check: text(MAX_DESCRIPTION, false) },
  [`${NS.apple}calendar-color`]: { kinds: ['event', 'task'], check: (v) => (COLOR.test(v) ? v : null) },
  [`${NS.apple}calendar-order`]: { kinds: ['event', 'task'], check: (v) => (ORDER.test(v) ? String(Number(v)) : null) },
}

/**
 * What creating a calendar may also carry and Hearth accepts without keeping: the resource
 * type being created (extended MKCOL), a component set holding the collection's component (VEVENT
 * for a calendar, VTODO for a task list; other components are refused at PUT), a calendar-timezone (each event keeps its own TZID),
 * and the free-busy choices Apple's clients send with every MKCALENDAR (Hearth has no
 * free-busy): refusing them would leave iOS and macOS unable to make a calendar.
 */
const ON_CREATION: Record<string, (node: XmlNode, kind: Kind) => boolean> = {
  [`${NS.dav}resourcetype`]: (n) =>
    !!child(n, NS.dav, 'collection') &&
    !!child(n, NS.caldav, 'calendar') &&
    n.children.every((c) => is(c, NS.dav, 'collection') || is(c, NS.caldav, 'calendar')),
  [`${NS.caldav}supported-calendar-component-set`]: (n, kind) =>
    childrenOf(n, NS.caldav, 'comp').some((c) => c.attrs.name === (kind === 'task' ? 'VTODO' : 'VEVENT')),
  [`${NS.caldav}calendar-timezone`]: () => true,
  [`${NS.caldav}calendar-free-busy-set`]: () => true,
  [`${NS.caldav}schedule-calendar-transp`]: () => true,
}

export interface PatchPlan {
  /** property key (namespace + name) → new value, null to remove (back to the default). */
  changes: Map<string, string | null>
  /** The propstat groups of the answer: 200 for all, or 403 for the refused and 424 for the others. */
  statuses: Array<[number, PropResult[]]>
  ok: boolean
}

/**
 * Plans the DAV:set and DAV:remove instructions of a propertyupdate (or a creation's DAV:set)
 * on a collection of `kind` (null: a resource with nothing settable), in document order; a
 * property named twice takes its last value and fails if any of its instructions fails.
 */
export function planPatch(kind: Kind | null, instructions: XmlNode[], creating: boolean): PatchPlan {
  const changes = new Map<string, string | null>()
  const props = new Map<string, { ns: string; name: string; failed: boolean }>()
  for (const op of instructions) {
    const remove = is(op, NS.dav, 'remove')
    if (!remove && !is(op, NS.dav, 'set')) continue
    for (const prop of childrenOf(op, NS.dav, 'prop'))
      for (const node of prop.children) {
        const key = `${node.ns}${node.name}`
        const entry = props.get(key) ?? { ns: node.ns, name: node.name, failed: false }
        props.set(key, entry)
        const settable = kind ? SETTABLE[key] : undefined
        if (settable?.kinds.includes(kind as Kind)) {
          const value = remove ? null : node.children.length ? null : settable.check(node.text)
          if (!remove && value === null) entry.failed = true
          else changes.set(key, value)
        } else if (!(creating && !remove && kind && ON_CREATION[key]?.(node, kind))) entry.failed = true
      }
  }
  const all = [...props.values()]
  const result = (p: (typeof all)[number]): PropResult => ({ ns: p.ns, name: p.name, value: null })
  const failed = all.filter((p) => p.failed)
  if (!failed.length) return { changes, statuses: [[200, all.map(result)]], ok: true }
  return {
    changes,
    statuses: [
      [403, failed.map(result)],
      [424, all.filter((p) => !p.failed).map(result)],
    ],
    ok: false,
  }
}
