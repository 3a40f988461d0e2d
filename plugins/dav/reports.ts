import type { ByteBudget } from '../../lib/byte-budget.js'
import {
  child,
  childrenOf,
  errorBody,
  is,
  type MultistatusStreamOptions,
  NS,
  response,
  statusResponse,
  type XmlNode,
} from '../../lib/webdav-xml/index.js'
import { HttpError } from '../../core/plugin-api.js'
import type { Collection, DavObject, Objects } from './objects-service.js'
import { cardMatches, timeRange } from './report-filters.js'
import { collectionPath, davPath, objectPath, resolve, sameCollection } from './paths.js'
import { logKind, type PropContext, propsOf, type Requested, requested, syncToken } from './properties.js'

/** Responses one REPORT or PROPFIND answers at most; beyond it the answer ends with a 507 for the collection. */
export const MAX_REPORT_ITEMS = 10_000

/** A multistatus to stream, or a refusal with its precondition element. */
export type ReportAnswer = { multistatus: MultistatusStreamOptions } | { status: 403; body: string }

/**
 * REPORT on a collection: calendar-/addressbook-query and -multiget, sync-collection. Everything that
 * can refuse the request is checked here, before the answer starts; the responses are then written
 * one by one as the answer streams, within the request's byte budget.
 */
export function report(ctx: PropContext, objects: Objects, c: Collection, body: XmlNode, budget: ByteBudget): ReportAnswer {
  const want = requested(body)
  const cutAt = collectionPath(c)
  const listing = (objs: DavObject[], tail?: () => string): ReportAnswer => ({
    multistatus: {
      responses: objectResponses(ctx, c, want, objs.slice(0, MAX_REPORT_ITEMS)),
      alreadyCut: objs.length > MAX_REPORT_ITEMS,
      cutAt,
      budget,
      tail,
    },
  })
  const calendarReport = c.kind !== 'card'
  if ((is(body, NS.caldav, 'calendar-multiget') && calendarReport) || (is(body, NS.carddav, 'addressbook-multiget') && !calendarReport)) {
    const hrefs = childrenOf(body, NS.dav, 'href').map((h) => h.text)
    if (hrefs.length > MAX_REPORT_ITEMS) throw new HttpError('PAYLOAD_TOO_LARGE', `at most ${MAX_REPORT_ITEMS} hrefs per multiget`)
    return { multistatus: { responses: multiget(ctx, objects, c, want, hrefs), cutAt, budget } }
  }
  if (is(body, NS.caldav, 'calendar-query') && calendarReport) {
    const range = timeRange(child(body, NS.caldav, 'filter'), c.kind === 'task' ? 'VTODO' : 'VEVENT')
    if (range === 'none') return listing([])
    const all = objects.members(ctx.userId, c)
    return listing(range ? all.filter((o) => objects.overlaps(o, range.from, range.to)) : all)
  }
  if (is(body, NS.carddav, 'addressbook-query') && !calendarReport) {
    const filter = child(body, NS.carddav, 'filter')
    const limit = Number(child(child(body, NS.carddav, 'limit'), NS.carddav, 'nresults')?.text ?? Number.NaN)
    const most = Number.isInteger(limit) && limit > 0 ? Math.min(limit, MAX_REPORT_ITEMS) : MAX_REPORT_ITEMS
    let more = false
    // Filtered as the answer is written: each card is rendered once, for its test and its address-data.
    function* matching(): Generator<DavObject> {
      let n = 0
      for (const o of objects.eachMember(ctx.userId, c)) {
        if (filter && !cardMatches(ctx.text(o), filter)) continue
        if (n++ === most) {
          more = most === MAX_REPORT_ITEMS
          return
        }
        yield o
      }
    }
    return { multistatus: { responses: objectResponses(ctx, c, want, matching()), alreadyCut: () => more, cutAt, budget } }
  }
  if (is(body, NS.dav, 'sync-collection')) return syncCollection(ctx, objects, c, body, budget)
  return { status: 403, body: errorBody(NS.dav, 'supported-report') }
}

/** One response per object, each written when the answer asks for the next. */
export function* objectResponses(ctx: PropContext, c: Collection, want: Requested, objs: Iterable<DavObject>): Generator<string> {
  for (const obj of objs) {
    const { found, missing } = propsOf(ctx, { type: 'object', collection: c, name: obj.name }, want, obj)
    yield response(objectPath(c, obj.name), found, missing)
  }
}

/**
 * One response per distinct object the hrefs name, in the order first named: an href repeated (or
 * spelled another way) is answered once, and each object is read once.
 */
function* multiget(ctx: PropContext, objects: Objects, c: Collection, want: Requested, hrefs: string[]): Generator<string> {
  const seen = new Set<string>()
  for (const h of hrefs) {
    const path = davPath(h)
    const target = path === null ? null : resolve(path)
    const mine = target?.type === 'object' && sameCollection(target.collection, c)
    const key = mine ? objectPath(c, target.name) : `\u0000${h}`
    if (seen.has(key)) continue
    seen.add(key)
    const obj = mine ? objects.find(ctx.userId, c, target.name) : null
    if (!obj || target?.type !== 'object') yield statusResponse(h, 404)
    else {
      const { found, missing } = propsOf(ctx, target, want, obj)
      yield response(objectPath(c, obj.name), found, missing)
    }
  }
}

/** A sync token: the change it stands at, and (an initial listing cut short) the name it listed up to. */
const TOKEN = /^http:\/\/hearth\.invalid\/ns\/sync\/(\d{1,15})(?:\/([^/<>&]{0,1024}))?$/

function syncCollection(ctx: PropContext, objects: Objects, c: Collection, body: XmlNode, budget: ByteBudget): ReportAnswer {
  const given = child(body, NS.dav, 'sync-token')?.text.trim() ?? ''
  // A shared collection's changes are logged under its owner: its tokens are the owner's.
  const home = c.owner ?? ctx.userId
  const head = ctx.store.head(home)
  const tokenXml = (seq: number, listedUpTo?: string) =>
    `<d:sync-token>${syncToken(seq)}${listedUpTo === undefined ? '' : `/${encodeURIComponent(listedUpTo)}`}</d:sync-token>`
  const want = requested(body)
  const cutAt = collectionPath(c)
  if (!given) return initialListing(ctx, objects, c, want, budget, head, null, tokenXml, cutAt)
  const match = TOKEN.exec(given)
  const seq = Number(match?.[1] ?? Number.NaN)
  let listedUpTo: string | null = null
  try {
    listedUpTo = match?.[2] === undefined ? null : decodeURIComponent(match[2])
  } catch {
    return { status: 403, body: errorBody(NS.dav, 'valid-sync-token') }
  }
  // A shared collection's token from before it was shared with the user would list its past.
  const sharedFrom = c.owner === undefined ? 0 : ctx.store.sharedFrom(c.owner, ctx.userId, c.kind, c.name)
  if (!Number.isSafeInteger(seq) || seq > head || seq < ctx.store.resetAt(home) || seq < sharedFrom) {
    return { status: 403, body: errorBody(NS.dav, 'valid-sync-token') }
  }
  if (listedUpTo !== null) return initialListing(ctx, objects, c, want, budget, seq, listedUpTo, tokenXml, cutAt)
  const changes = ctx.store.since(home, logKind(c), c.name, seq)
  const kept = changes.slice(0, MAX_REPORT_ITEMS)
  // An answer cut short (by count or bytes) gives the token of its last change: the client asks again from there (RFC 6578 3.6).
  let reached = seq
  let complete = false
  function* responses(): Generator<string> {
    for (const change of kept) {
      yield changeResponse(ctx, objects, c, want, change.name)
      // Resumed: the response above was written.
      reached = change.seq
    }
    complete = kept.length === changes.length
  }
  return {
    multistatus: {
      responses: responses(),
      alreadyCut: changes.length > kept.length,
      cutAt,
      budget,
      tail: () => tokenXml(complete ? head : reached),
    },
  }
}

/** An object's response in a sync answer: its properties, or 404 when it is gone. */
function changeResponse(ctx: PropContext, objects: Objects, c: Collection, want: Requested, name: string): string {
  const obj = objects.find(ctx.userId, c, name)
  if (!obj) return statusResponse(objectPath(c, name), 404)
  const { found, missing } = propsOf(ctx, { type: 'object', collection: c, name: obj.name }, want, obj)
  return response(objectPath(c, obj.name), found, missing)
}

/**
 * A first sync lists every member, in name order. Cut short (by count or bytes), its token names the
 * change it started at and the last name it listed: the next request lists the members after that
 * name, then the changes since the start to the members listed before, and only a whole answer gives
 * the head token. (The head token on a cut listing would tell the client it has everything.)
 */
function initialListing(
  ctx: PropContext,
  objects: Objects,
  c: Collection,
  want: Requested,
  budget: ByteBudget,
  startedAt: number,
  after: string | null,
  tokenXml: (seq: number, listedUpTo?: string) => string,
  cutAt: string,
): ReportAnswer {
  const home = c.owner ?? ctx.userId
  const head = ctx.store.head(home)
  const members = objects
    .members(ctx.userId, c)
    .filter((o) => after === null || o.name > after)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const earlier = after === null ? [] : ctx.store.since(home, logKind(c), c.name, startedAt).filter((ch) => ch.name <= after)
  let listed = after ?? ''
  let listing = true
  let reached = startedAt
  let written = 0
  let complete = false
  function* responses(): Generator<string> {
    for (const obj of members) {
      if (written === MAX_REPORT_ITEMS) return
      const { found, missing } = propsOf(ctx, { type: 'object', collection: c, name: obj.name }, want, obj)
      yield response(objectPath(c, obj.name), found, missing)
      listed = obj.name
      written++
    }
    listing = false
    for (const change of earlier) {
      if (written === MAX_REPORT_ITEMS) return
      yield changeResponse(ctx, objects, c, want, change.name)
      reached = change.seq
      written++
    }
    complete = true
  }
  return {
    multistatus: {
      responses: responses(),
      alreadyCut: () => !complete,
      cutAt,
      budget,
      // Cut among the members: go on after the last listed; among the earlier members' changes: from the last change.
      tail: () => (complete ? tokenXml(head) : listing ? tokenXml(startedAt, listed) : tokenXml(reached)),
    },
  }
}
