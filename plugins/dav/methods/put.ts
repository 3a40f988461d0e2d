import { HttpError } from '../../../core/plugin-api.js'
import { errorBody, href, NS } from '../../../lib/webdav-xml/index.js'
import { AttendeeChangeRefused } from '../invitations.js'
import { UidConflict } from '../objects-service.js'
import { objectPath } from '../paths.js'
import { type DavRequest, header, sendXml } from '../request.js'
import { refusedWrite } from '../shared-access.js'

/** PUT: creates or replaces a vCard or iCalendar object; a UID another object of the collection holds is refused. */
export async function put(r: DavRequest) {
  const { target } = r
  if (target.type !== 'object') throw new HttpError('METHOD_NOT_ALLOWED', 'PUT a vCard or iCalendar object into a collection')
  if (!r.exists(target.collection)) throw new HttpError('CONFLICT', 'No such calendar: create it with MKCALENDAR first')
  const type = String(r.req.headers['content-type'] ?? '').toLowerCase()
  if (type.includes('json') || type.startsWith('multipart/'))
    throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'PUT text/vcard or text/calendar')
  if (target.collection.invitations) {
    // Only the organizer adds an event to a member's invitations: a new object needs DAV:bind, which they lack.
    if (!r.objects.find(r.userId, target.collection, target.name) && refusedWrite(r, target.collection, 'bind')) return r.reply
    return answer(r, target.name)
  }
  const adding = () => (r.objects.find(r.userId, target.collection, target.name) ? 'write-content' : 'bind')
  if (refusedWrite(r, target.collection, adding, target.name)) return r.reply
  // Re-encoded before the write: everything from the precondition check on runs in one synchronous call.
  const photo = target.collection.kind === 'card' ? await r.objects.cardPhoto(r.body) : null
  try {
    const result = r.objects.put(
      r.userId,
      target.collection,
      target.name,
      r.body,
      header(r.req, 'if-match'),
      header(r.req, 'if-none-match'),
      photo,
    )
    return r.reply
      .code(result.created ? 201 : 204)
      .header('etag', result.etag)
      .send()
  } catch (err) {
    if (!(err instanceof UidConflict)) throw err
    // RFC 4791 5.3.2.1 / RFC 6352 6.3.2.1: the precondition names the object that holds the UID.
    const ns = target.collection.kind === 'card' ? NS.carddav : NS.caldav
    return sendXml(r.reply, 409, errorBody(ns, 'no-uid-conflict', href(objectPath(target.collection, err.holder))))
  }
}

/**
 * A PUT into the Invitations: the attendee's new PARTSTAT answers the invitation. Any other change,
 * or a new object, is refused with RFC 6638 3.2.2.1's precondition, nothing stored.
 */
function answer(r: DavRequest, name: string) {
  try {
    const result = r.objects.answerInvitation(r.userId, name, r.body, header(r.req, 'if-match'), header(r.req, 'if-none-match'))
    return r.reply.code(204).header('etag', result.etag).send()
  } catch (err) {
    if (!(err instanceof AttendeeChangeRefused)) throw err
    return sendXml(r.reply, 403, errorBody(NS.caldav, 'allowed-attendee-scheduling-object-change', ''))
  }
}
