import { HttpError } from '../../core/plugin-api.js'
import { child, childrenOf, NS, type XmlNode } from '../../lib/webdav-xml/index.js'
import { contentLines } from './objects.js'

/**
 * The time range of a calendar-query's filter (VCALENDAR > VEVENT or VTODO > time-range), null for
 * none; 'none' when the filter asks for a component this collection never holds (VTODO of a
 * calendar, VEVENT of a task list). Other filters (prop-filter...) are not applied: the answer is
 * then a superset, which clients filter again (RFC 4791 leaves that to them when in doubt).
 */
export function timeRange(
  filter: XmlNode | undefined,
  component: 'VEVENT' | 'VTODO' = 'VEVENT',
): { from: number; to: number } | null | 'none' {
  const calendar = child(filter, NS.caldav, 'comp-filter')
  if (!calendar) return null
  const inner = childrenOf(calendar, NS.caldav, 'comp-filter')
  if (!inner.length) return null
  const vevent = inner.find((n) => n.attrs.name?.toUpperCase() === component)
  if (!vevent) return 'none'
  const range = child(vevent, NS.caldav, 'time-range')
  if (!range) return null
  const from = range.attrs.start ? icsInstant(range.attrs.start) : -8.64e15
  const to = range.attrs.end ? icsInstant(range.attrs.end) : 8.64e15
  if (Number.isNaN(from) || Number.isNaN(to))
    throw new HttpError('VALIDATION_ERROR', 'time-range start/end must be UTC date-times', { field: 'time-range', constraint: 'format' })
  return { from, to }
}

const UTC_STAMP = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/

/** A UTC date-time as iCalendar writes it (20261101T090000Z) in epoch ms; NaN otherwise. */
export function icsInstant(value: string): number {
  const m = UTC_STAMP.exec(value.trim())
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Number.NaN
}

/** CardDAV prop-filters (RFC 6352 10.5): anyof (default) or allof, text-match with its match-type. */
export function cardMatches(text: string, filter: XmlNode): boolean {
  const filters = childrenOf(filter, NS.carddav, 'prop-filter')
  if (!filters.length) return true
  const lines = contentLines(text)
  const test = (pf: XmlNode) => {
    const name = (pf.attrs.name ?? '').toUpperCase()
    const values = lines.filter((l) => l.name === name).map((l) => l.value)
    if (child(pf, NS.carddav, 'is-not-defined')) return values.length === 0
    const matches = childrenOf(pf, NS.carddav, 'text-match')
    if (!matches.length) return values.length > 0
    const one = (m: XmlNode) => {
      const needle = m.text.toLowerCase()
      const type = m.attrs['match-type'] ?? 'contains'
      const hit = values.some((v) => {
        const hay = v.toLowerCase()
        return type === 'equals'
          ? hay === needle
          : type === 'starts-with'
            ? hay.startsWith(needle)
            : type === 'ends-with'
              ? hay.endsWith(needle)
              : hay.includes(needle)
      })
      return m.attrs['negate-condition'] === 'yes' ? !hit : hit
    }
    return pf.attrs.test === 'allof' ? matches.every(one) : matches.some(one)
  }
  return filter.attrs.test === 'allof' ? filters.every(test) : filters.some(test)
}
