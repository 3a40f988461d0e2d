import { HttpError } from '../../../core/plugin-api.js'
import { CALENDAR_TYPE, CARD_TYPE } from '../objects.js'
import type { DavRequest } from '../request.js'

/** GET and HEAD: an object's text with its ETag; a short notice for collections. */
export function get(r: DavRequest) {
  const { target } = r
  if (target.type !== 'object') return r.reply.code(200).type('text/plain; charset=utf-8').send('Hearth CalDAV/CardDAV\n')
  const obj = r.objects.find(r.userId, target.collection, target.name)
  if (!obj) throw new HttpError('NOT_FOUND', 'No such object')
  return r.reply
    .code(200)
    .header('etag', obj.etag)
    .type(target.collection.kind === 'card' ? CARD_TYPE : CALENDAR_TYPE)
    .send(r.props.text(obj))
}
