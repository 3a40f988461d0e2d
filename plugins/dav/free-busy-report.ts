import { HttpError } from '../../core/plugin-api.js'
import { contentLine } from '../../lib/content-line/lines.js'
import { formatStamp } from '../../lib/content-line/stamps.js'
import { child, NS, type XmlNode } from '../../lib/webdav-xml/index.js'
import type { FreeBusy } from '../records/public.js'
import { icsInstant } from './report-filters.js'

/**
 * CalDAV free-busy-query (RFC 4791 7.10) on a calendar: when its events make its owner busy in
 * the time-range asked, as one VFREEBUSY (FBTYPE=BUSY periods, merged, in UTC; no titles).
 * The rules are the JSON API's free/busy (series expanded, overrides and exdates applied;
 * cancelled, declined and transparent events left out; at most 366 days; bounded work).
 */
export function freeBusyReport(busy: FreeBusy, owner: string, calendar: string, body: XmlNode, now: number): string {
  const range = child(body, NS.caldav, 'time-range')
  const from = icsInstant(range?.attrs.start ?? '')
  const to = icsInstant(range?.attrs.end ?? '')
  if (!range || Number.isNaN(from) || Number.isNaN(to) || to <= from)
    throw new HttpError('VALIDATION_ERROR', 'free-busy-query needs a time-range with UTC start and end, end after start', {
      field: 'time-range',
      constraint: 'format',
    })
  const stamp = (ms: number) => formatStamp(new Date(ms).toISOString())
  const periods = busy.ofCalendar(owner, calendar, from, to - 1)
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Hearth//Hearth CalDAV//EN',
    'BEGIN:VFREEBUSY',
    `DTSTAMP:${stamp(now)}`,
    `DTSTART:${stamp(from)}`,
    `DTEND:${stamp(to)}`,
    ...periods.map((p) => contentLine('FREEBUSY', [['FBTYPE', 'BUSY']], `${stamp(Date.parse(p.start))}/${stamp(Date.parse(p.end))}`)),
    'END:VFREEBUSY',
    'END:VCALENDAR',
  ]
  return `${lines.join('\r\n')}\r\n`
}
