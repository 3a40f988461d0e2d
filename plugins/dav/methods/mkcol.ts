import { HttpError } from '../../../core/plugin-api.js'
import { documentOf, is, NS, propstats, XmlError } from '../../../lib/webdav-xml/index.js'
import { planPatch } from '../collection-props.js'
import { type DavRequest, sendXml } from '../request.js'
import { refuseCollectionChange } from '../shared-access.js'

/** MKCALENDAR (RFC 4791 5.3.1) and extended MKCOL (RFC 5689): a new calendar, with the body's properties or not at all. */
export function mkcol(r: DavRequest) {
  // A body (calendar properties) must be XML: anything else is an unknown format (RFC 4918 9.3).
  if (r.xml instanceof XmlError) throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'A MKCALENDAR/MKCOL body is XML')
  const root = r.xml ?? undefined
  const { target } = r
  if (target.type !== 'collection' || target.collection.kind === 'card')
    throw new HttpError('FORBIDDEN', 'Only calendars and task lists (tasks-<name>) can be created, under /dav/calendars/')
  if (target.collection.owner !== undefined || target.collection.invitations) return refuseCollectionChange(r, target.collection, 'bind')
  const kind = target.collection.kind
  if (r.exists(target.collection)) throw new HttpError('METHOD_NOT_ALLOWED', 'That calendar exists')
  const name = target.collection.name
  if (name.length > 200) throw new HttpError('VALIDATION_ERROR', 'calendar name too long', { field: 'name', constraint: 'maxLength' })
  const plain = r.req.method === 'MKCOL'
  const creation = is(root, NS.caldav, 'mkcalendar') || is(root, NS.dav, 'mkcol') ? root.children : []
  const plan = planPatch(kind, creation, true)
  if (!plan.ok) {
    const [ns, element] = plain ? [NS.dav, 'mkcol-response'] : [NS.caldav, 'mkcalendar-response']
    return sendXml(r.reply, 403, documentOf(ns, element, propstats(plan.statuses)))
  }
  const created = new Date(r.api.now()).toISOString()
  r.store.patchCollection(r.userId, kind, name, plan.changes, () => r.store.addCalendar(r.userId, name, created, kind))
  return r.reply.code(201).header('content-length', '0').send()
}
