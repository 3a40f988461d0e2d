import { ADDRESSBOOK_HOME, CALENDAR_HOME, memberPrincipal, PRINCIPAL, type Target } from './paths.js'
import type { Collection, DavObject, Objects } from './objects-service.js'
import { type Privilege, sharedDisplayName } from './shared.js'
import { CALENDAR_TYPE, CARD_TYPE } from './objects.js'
import { INVITATION_LOG, INVITATIONS_DISPLAYNAME } from './invitations.js'
import { el, href, NS, type PropResult, type PropValue, type XmlNode } from '../../lib/webdav-xml/index.js'
import type { DavStore } from './store.js'
import { isBirthdays } from './birthdays.js'

/**
 * The live properties each kind of resource answers (RFC 4918, 4791, 6352, 6578, 5397,
 * and CalendarServer's getctag), computed only when asked for.
 */
export interface PropContext {
  userId: string
  email: string
  objects: Objects
  store: DavStore
  /** What the user may do in a collection (objects-service's privilege, from the records' access rules). */
  privilege(c: Collection): Privilege
  /** A member as the user sees them: their name (else their email) and email; undefined for no active member. */
  member(id: string): { name: string; email: string } | undefined
  /** Renders an object's text (calendar-data / address-data); the last object's is kept for its other properties. */
  text(obj: DavObject): string
}

export const syncToken = (seq: number) => `http://hearth.invalid/ns/sync/${seq}`

type Getter = (ctx: PropContext, target: Target, obj?: DavObject) => PropValue | null | undefined

const xml = (s: string) => ({ xml: s })
const PRIVILEGES = ['read', 'write', 'write-properties', 'write-content', 'bind', 'unbind', 'read-current-user-privilege-set']
/**
 * What a member reads and writes in a collection shared with them (RFC 3744 5.4): a read share
 * reads (and a calendar's free/busy, RFC 4791 6.1.1), a write share also adds, changes and removes
 * objects; neither changes the collection's own properties (its owner names and colours it).
 */
const SHARED_PRIVILEGES: Record<'read' | 'write' | 'attendee', string[]> = {
  read: ['read', 'read-current-user-privilege-set'],
  // The member's Invitations: they change their answer in the objects there (write-content), never add or remove one.
  attendee: ['read', 'write-content', 'read-current-user-privilege-set'],
  write: ['read', 'write-content', 'bind', 'unbind', 'read-current-user-privilege-set'],
}
const privilegeSet = (c: Collection | null, level: Privilege) => {
  const names = level === 'read' || level === 'write' || level === 'attendee' ? SHARED_PRIVILEGES[level] : PRIVILEGES
  const own = names.map((p) => el(NS.dav, 'privilege', el(NS.dav, p)))
  if (c && c.kind !== 'card' && !c.invitations) own.push(el(NS.dav, 'privilege', el(NS.caldav, 'read-free-busy')))
  return own.join('')
}
/** The user's own DAV rows, or the owner's for a collection shared with them. */
const homeOf = (ctx: PropContext, c: Collection) => c.owner ?? ctx.userId
/** The kind a collection's changes are logged under. */
export const logKind = (c: Collection) => (c.invitations ? INVITATION_LOG : c.kind)
const REPORTS: Record<string, Array<[string, string]>> = {
  event: [
    [NS.caldav, 'calendar-query'],
    [NS.caldav, 'calendar-multiget'],
    [NS.dav, 'sync-collection'],
  ],
  task: [
    [NS.caldav, 'calendar-query'],
    [NS.caldav, 'calendar-multiget'],
    [NS.dav, 'sync-collection'],
  ],
  card: [
    [NS.carddav, 'addressbook-query'],
    [NS.carddav, 'addressbook-multiget'],
    [NS.dav, 'sync-collection'],
  ],
}

const isCollection = (t: Target) => t.type !== 'object'
const calendarOf = (t: Target) => (t.type === 'collection' && t.collection.kind !== 'card' ? t.collection : null)
const bookOf = (t: Target) => (t.type === 'collection' && t.collection.kind === 'card' ? t.collection : null)

/** The properties a client set on a collection, read once per request and collection. */
const setByClient = new WeakMap<PropContext, Map<string, Map<string, string>>>()
function stored(ctx: PropContext, t: Target, key: string): string | undefined {
  if (t.type !== 'collection') return undefined
  let perRequest = setByClient.get(ctx)
  if (!perRequest) setByClient.set(ctx, (perRequest = new Map()))
  const id = `${t.collection.owner ?? ''}/${t.collection.kind}/${t.collection.name}`
  let props = perRequest.get(id)
  if (!props) perRequest.set(id, (props = ctx.store.collectionProps(homeOf(ctx, t.collection), t.collection.kind, t.collection.name)))
  return props.get(key)
}

const GETTERS: Record<string, Getter> = {
  [`${NS.dav}resourcetype`]: (_c, t) => {
    if (t.type === 'object') return ''
    if (t.type === 'principal' || t.type === 'member') return xml(el(NS.dav, 'collection') + el(NS.dav, 'principal'))
    if (calendarOf(t)) return xml(el(NS.dav, 'collection') + el(NS.caldav, 'calendar'))
    if (bookOf(t)) return xml(el(NS.dav, 'collection') + el(NS.carddav, 'addressbook'))
    return xml(el(NS.dav, 'collection'))
  },
  [`${NS.dav}displayname`]: (c, t) => {
    if (t.type === 'principal') return c.email
    if (t.type === 'member') return c.member(t.id)?.name
    if (t.type !== 'collection') return undefined
    if (t.collection.invitations) return INVITATIONS_DISPLAYNAME
    const name =
      stored(c, t, `${NS.dav}displayname`) ??
      (t.collection.kind === 'card' ? 'Contacts' : isBirthdays(t.collection) ? 'Birthdays' : t.collection.name)
    // Whose it is, for a collection another member shares: "Family (Anna)".
    const { owner } = t.collection
    return owner === undefined ? name : sharedDisplayName(name, c.member(owner)?.name ?? 'another member')
  },
  // Set by a client (PROPPATCH, MKCALENDAR): answered only once set, else missing (404).
  [`${NS.caldav}calendar-description`]: (c, t) => (calendarOf(t) ? stored(c, t, `${NS.caldav}calendar-description`) : undefined),
  [`${NS.carddav}addressbook-description`]: (c, t) => (bookOf(t) ? stored(c, t, `${NS.carddav}addressbook-description`) : undefined),
  [`${NS.apple}calendar-color`]: (c, t) => (calendarOf(t) ? stored(c, t, `${NS.apple}calendar-color`) : undefined),
  [`${NS.apple}calendar-order`]: (c, t) => (calendarOf(t) ? stored(c, t, `${NS.apple}calendar-order`) : undefined),
  [`${NS.dav}current-user-principal`]: () => xml(href(PRINCIPAL)),
  [`${NS.dav}principal-URL`]: (_c, t) =>
    t.type === 'principal' ? xml(href(PRINCIPAL)) : t.type === 'member' ? xml(href(memberPrincipal(t.id))) : undefined,
  [`${NS.dav}owner`]: (_c, t) =>
    t.type === 'collection' ? xml(href(t.collection.owner === undefined ? PRINCIPAL : memberPrincipal(t.collection.owner))) : undefined,
  [`${NS.dav}principal-collection-set`]: () => xml(href('/dav/')),
  [`${NS.dav}current-user-privilege-set`]: (c, t) =>
    t.type === 'collection' || t.type === 'object'
      ? xml(privilegeSet(t.collection, isBirthdays(t.collection) ? 'read' : c.privilege(t.collection)))
      : t.type === 'member'
        ? xml(el(NS.dav, 'privilege', el(NS.dav, 'read')))
        : xml(privilegeSet(null, 'owner')),
  [`${NS.dav}supported-report-set`]: (_c, t) =>
    t.type === 'collection'
      ? xml(
          (REPORTS[t.collection.kind] ?? [])
            .map(([ns, name]) => el(NS.dav, 'supported-report', el(NS.dav, 'report', el(ns, name))))
            .join(''),
        )
      : undefined,
  [`${NS.caldav}calendar-home-set`]: (_c, t) => (t.type === 'principal' ? xml(href(CALENDAR_HOME)) : undefined),
  [`${NS.carddav}addressbook-home-set`]: (_c, t) => (t.type === 'principal' ? xml(href(ADDRESSBOOK_HOME)) : undefined),
  [`${NS.caldav}calendar-user-address-set`]: (c, t) => {
    const email = t.type === 'principal' ? c.email : t.type === 'member' ? c.member(t.id)?.email : undefined
    return email === undefined ? undefined : xml(href(`mailto:${email}`))
  },
  [`${NS.caldav}supported-calendar-component-set`]: (_c, t) => {
    const c = calendarOf(t)
    return c ? xml(`<c:comp name="${c.kind === 'task' ? 'VTODO' : 'VEVENT'}"/>`) : undefined
  },
  [`${NS.carddav}supported-address-data`]: (_c, t) =>
    bookOf(t)
      ? xml(
          '<card:address-data-type content-type="text/vcard" version="3.0"/><card:address-data-type content-type="text/vcard" version="4.0"/>',
        )
      : undefined,
  [`${NS.caldav}max-resource-size`]: (_c, t) => (calendarOf(t) ? String(MAX_OBJECT_BYTES) : undefined),
  [`${NS.carddav}max-resource-size`]: (_c, t) => (bookOf(t) ? String(MAX_OBJECT_BYTES) : undefined),
  [`${NS.dav}sync-token`]: (c, t) => (t.type === 'collection' ? syncToken(c.store.head(homeOf(c, t.collection))) : undefined),
  [`${NS.cs}getctag`]: (c, t) =>
    t.type === 'collection'
      ? syncToken(c.store.collectionHead(homeOf(c, t.collection), logKind(t.collection), t.collection.name))
      : undefined,
  [`${NS.dav}getetag`]: (_c, t, obj) => (t.type === 'object' && obj ? obj.etag : undefined),
  [`${NS.dav}getcontenttype`]: (_c, t) =>
    t.type === 'object' ? (t.collection.kind === 'card' ? CARD_TYPE : CALENDAR_TYPE) : isCollection(t) ? 'httpd/unix-directory' : undefined,
  [`${NS.dav}getcontentlength`]: (c, t, obj) => (t.type === 'object' && obj ? String(Buffer.byteLength(c.text(obj))) : undefined),
  [`${NS.caldav}calendar-data`]: (c, t, obj) => (t.type === 'object' && t.collection.kind !== 'card' && obj ? c.text(obj) : undefined),
  [`${NS.carddav}address-data`]: (c, t, obj) => (t.type === 'object' && t.collection.kind === 'card' && obj ? c.text(obj) : undefined),
}

/** Objects larger than this are refused (413); clients read it as max-resource-size. */
export const MAX_OBJECT_BYTES = 1024 * 1024

/** What allprop answers (never the object bodies: RFC 4791 9.6 asks for them explicitly). */
const ALLPROP = Object.keys(GETTERS).filter(
  (k) => !k.endsWith('calendar-data') && !k.endsWith('address-data') && !k.endsWith('getcontentlength'),
)

export type Requested = { names: Array<[string, string]> } | { allprop: true } | { propname: true }

/** What a PROPFIND or REPORT body asks for: <prop> names, <allprop/> or <propname/>. */
export function requested(root: XmlNode | null): Requested {
  if (!root) return { allprop: true }
  if (root.children.some((c) => c.ns === NS.dav && c.name === 'propname')) return { propname: true }
  const prop = root.children.find((c) => c.ns === NS.dav && c.name === 'prop')
  if (!prop) return { allprop: true }
  // A property named twice is answered once: a body repeating names cannot grow each response.
  const names = new Map<string, [string, string]>()
  for (const c of prop.children) names.set(`${c.ns} ${c.name}`, [c.ns, c.name])
  return { names: [...names.values()] }
}

/** The found and missing properties of one resource. */
export function propsOf(
  ctx: PropContext,
  target: Target,
  want: Requested,
  obj?: DavObject,
): { found: PropResult[]; missing: PropResult[] } {
  const found: PropResult[] = []
  const missing: PropResult[] = []
  const names = 'names' in want ? want.names : ALLPROP.map((k) => [k.slice(0, splitKey(k)), k.slice(splitKey(k))] as [string, string])
  for (const [ns, name] of names) {
    const value = GETTERS[`${ns}${name}`]?.(ctx, target, obj)
    if (value === undefined || value === null) {
      if ('names' in want) missing.push({ ns, name, value: null })
    } else found.push({ ns, name, value: 'propname' in want ? null : value })
  }
  return { found, missing }
}

/** Where a getter key's namespace ends: the known namespaces are prefixes of the keys. */
function splitKey(key: string): number {
  for (const ns of Object.values(NS)) if (key.startsWith(ns)) return ns.length
  return 0
}
