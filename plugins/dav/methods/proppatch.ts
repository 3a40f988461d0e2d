import { HttpError } from '../../../core/plugin-api.js'
import { multistatus, NS, propstatResponse } from '../../../lib/webdav-xml/index.js'
import { planPatch } from '../collection-props.js'
import { ROOT } from '../paths.js'
import { type DavRequest, sendXml, xmlBody } from '../request.js'

/** PROPPATCH (RFC 4918 9.2): a collection's name, description, colour and order; all or none. */
export function proppatch(r: DavRequest) {
  const root = xmlBody(r.xml, NS.dav, 'propertyupdate', false)
  const collection = r.target.type === 'collection' ? r.target.collection : null
  if (collection && !r.exists(collection)) throw new HttpError('NOT_FOUND', 'No such collection')
  // A shared collection's name, colour and order are its owner's: nothing of it is settable by its sharees.
  const plan = planPatch(
    collection && collection.owner === undefined && !collection.invitations ? collection.kind : null,
    root.children,
    false,
  )
  if (plan.ok && collection) r.store.patchCollection(r.userId, collection.kind, collection.name, plan.changes)
  return sendXml(r.reply, 207, multistatus([propstatResponse(r.req.url.split('?')[0] ?? ROOT, plan.statuses)]))
}
