import { HttpError } from '../../../core/plugin-api.js'
import { type DavRequest, header } from '../request.js'
import { isBirthdays, readOnly } from '../birthdays.js'
import { refuseCollectionChange, refusedWrite } from '../shared-access.js'

/** DELETE: an object to the trash (If-Match honoured), or a calendar with its events. */
export function remove(r: DavRequest) {
  const { target } = r
  if (target.type === 'object') {
    // Deleting an invitation declines it (RFC 6638 3.2.6): it stays, answered, in the Invitations.
    if (!target.collection.invitations && refusedWrite(r, target.collection, 'unbind')) return r.reply
    r.objects.remove(r.userId, target.collection, target.name, header(r.req, 'if-match'))
    return r.reply.code(204).send()
  }
  if (target.type === 'collection' && isBirthdays(target.collection)) throw readOnly()
  // Another member's collection is theirs to delete (or to stop sharing).
  if (target.type === 'collection' && (target.collection.owner !== undefined || target.collection.invitations))
    return refuseCollectionChange(r, target.collection, 'unbind')
  if (target.type === 'collection' && target.collection.kind !== 'card' && r.exists(target.collection)) {
    // A calendar goes with its events, a task list with its tasks (to the trash, as the JSON API deletes them).
    for (const obj of r.objects.members(r.userId, target.collection)) r.objects.remove(r.userId, target.collection, obj.name)
    r.store.dropCalendar(r.userId, target.collection.name, target.collection.kind)
    return r.reply.code(204).send()
  }
  throw new HttpError('FORBIDDEN', 'This collection cannot be deleted')
}
