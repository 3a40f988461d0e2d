import { HttpError } from '../../core/plugin-api.js'
import type { Collection, DavObject, Objects } from './objects-service.js'
import { contentLines } from './objects.js'
import { collectionPath, davPath, objectPath, resolve } from './paths.js'
import { type PropContext, propsOf, requested, syncToken } from './properties.js'
import { child, childrenOf, errorBody, is, multistatus, NS, response, statusResponse, type XmlNode } from './xml.js'

/** Responses one REPORT answers at most; beyond it the collection's own response says 507 (RFC 5323 style). */
export const MAX_REPORT_ITEMS = 10_000

export type ReportAnswer = { status: 207; body: string } | { status: 403; body: string }

/** REPORT on a collection: calendar-/addressbook-query and -multiget, sync-collection. */
export function report(ctx: PropContext, objects: Objects, c: Collection, body: XmlNode): ReportAnswer {
  const want = requested(body)
  const answer = (objs: DavObject[], extra = '') => {
    const kept = objs.slice(0, MAX_REPORT_ITEMS)
    const out = kept.map((obj) => {
      const { found, missing } = propsOf(ctx, { type: 'object', collection: c, name: obj.name }, want, obj)
      return response(objectPath(c, obj.name), found, missing)
    })
    if (objs.length > MAX_REPORT_ITEMS) out.push(statusResponse(collectionPath(c), 507))
    return { status: 207 as const, body: multistatus(out, extra) }
  }
  const calendarReport = c.kind === 'event'
  if ((is(body, NS.caldav, 'calendar-multiget') && calendarReport) || (is(body, NS.carddav, 'addressbook-multiget') && !calendarReport)) {
    const hrefs = childrenOf(body, NS.dav, 'href').map((h) => h.text)
    if (hrefs.length > MAX_REPORT_ITEMS) throw new HttpError('PAYLOAD_TOO_LARGE', `at most ${MAX_REPORT_ITEMS} hrefs per multiget`)
    const out: string[] = []
    for (const h of hrefs) {
      const path = davPath(h)
      const target = path === null ? null : resolve(path)
      const obj =
        target?.type === 'object' && target.collection.kind === c.kind && target.collection.name === c.name
          ? objects.find(ctx.userId, c, target.name)
          : null
      if (!obj || target?.type !== 'object') out.push(statusResponse(h, 404))
      else {
        const { found, missing } = propsOf(ctx, target, want, obj)
        out.push(response(objectPath(c, obj.name), found, missing))
      }
    }
    return { status: 207, body: multistatus(out) }
  }
  if (is(body, NS.caldav, 'calendar-query') && calendarReport) {
    const range = timeRange(child(body, NS.caldav, 'filter'))
    if (range === 'none') return answer([])
    const all = objects.members(ctx.userId, c)
    return answer(range ? all.filter((o) => objects.overlaps(o, range.from, range.to)) : all)
  }
  if (is(body, NS.carddav, 'addressbook-query') && !calendarReport) {
    const filter = child(body, NS.carddav, 'filter')
    const limit = Number(child(child(body, NS.carddav, 'limit'), NS.carddav, 'nresults')?.text ?? Number.NaN)
    const matches = objects.members(ctx.userId, c).filter((o) => !filter || cardMatches(ctx.text(o), filter))
    return answer(Number.isInteger(limit) && limit > 0 ? matches.slice(0, limit) : matches)
  }
  if (is(body, NS.dav, 'sync-collection')) return syncCollection(ctx, objects, c, body, answer)
  return { status: 403, body: errorBody(NS.dav, 'supported-report') }
}

const TOKEN = /^http:\/\/hearth\.invalid\/ns\/sync\/(\d{1,15})$/

function syncCollection(
  ctx: PropContext,
  objects: Objects,
  c: Collection,
  body: XmlNode,
  answer: (objs: DavObject[], extra?: string) => ReportAnswer,
): ReportAnswer {
  const given = child(body, NS.dav, 'sync-token')?.text.trim() ?? ''
  const head = ctx.store.head(ctx.userId)
  const tokenXml = `<d:sync-token>${syncToken(head)}</d:sync-token>`
  if (!given) return answer(objects.members(ctx.userId, c), tokenXml)
  const seq = Number(TOKEN.exec(given)?.[1] ?? Number.NaN)
  if (!Number.isSafeInteger(seq) || seq > head || seq < ctx.store.resetAt(ctx.userId)) {
    return { status: 403, body: errorBody(NS.dav, 'valid-sync-token') }
  }
  const changes = ctx.store.since(ctx.userId, c.kind, c.name, seq)
  const want = requested(body)
  const out: string[] = []
  for (const change of changes.slice(0, MAX_REPORT_ITEMS)) {
    const obj = change.deleted ? null : objects.find(ctx.userId, c, change.name)
    if (!obj) out.push(statusResponse(objectPath(c, change.name), 404))
    else {
      const { found, missing } = propsOf(ctx, { type: 'object', collection: c, name: obj.name }, want, obj)
      out.push(response(objectPath(c, obj.name), found, missing))
    }
  }
  if (changes.length > MAX_REPORT_ITEMS) out.push(statusResponse(collectionPath(c), 507))
  return { status: 207, body: multistatus(out, tokenXml) }
}

/**
 * The time range of a calendar-query's filter (VCALENDAR > VEVENT > time-range), null for none;
 * 'none' when the filter asks for a component this calendar never holds (VTODO...).
 */
function timeRange(filter: XmlNode | undefined): { from: number; to: number } | null | 'none' {
  const calendar = child(filter, NS.caldav, 'comp-filter')
  if (!calendar) return null
  const inner = childrenOf(calendar, NS.caldav, 'comp-filter')
  if (!inner.length) return null
  const vevent = inner.find((n) => n.attrs.name?.toUpperCase() === 'VEVENT')
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

function icsInstant(value: string): number {
  const m = UTC_STAMP.exec(value.trim())
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Number.NaN
}

/** CardDAV prop-filters (RFC 6352 10.5): anyof (default) or allof, text-match with its match-type. */
function cardMatches(text: string, filter: XmlNode): boolean {
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
