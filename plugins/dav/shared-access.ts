import { el, errorBody, href, NS } from '../../lib/webdav-xml/index.js'
import type { Collection } from './objects-service.js'
import { collectionPath, objectPath } from './paths.js'
import { type DavRequest, sendXml } from './request.js'

/**
 * How requests meet collections other members share (shared.ts): what the user may do is the
 * records' access rules' answer (objects.privilege), asked once per request here and enforced
 * again by the records service on every read and write.
 */

/**
 * Whether the target is hidden from the user: another member's collection (or an object in one)
 * not shared with them, a member principal of someone sharing nothing with them. All of it is
 * 404, whatever the method: an href guessed from the scheme tells nothing.
 */
export function hidden(r: DavRequest): boolean {
  const { target } = r
  if (target.type === 'member') return !r.objects.owners(r.userId).includes(target.id)
  if (target.type !== 'collection' && target.type !== 'object') return false
  return target.collection.owner !== undefined && r.objects.privilege(r.userId, target.collection) === null
}

/** The write a method makes: adding an object (bind), changing one (write-content), removing one (unbind). */
export type Write = 'bind' | 'write-content' | 'unbind'

/**
 * Answers 403 with DAV:need-privileges (RFC 3744 7.1.1) when the user may not make `write` in
 * collection `c` (a share for reading, or a shared collection's own properties): true when it
 * answered. Nothing is stored: the answer comes before any write.
 */
export function refusedWrite(r: DavRequest, c: Collection, which: Write | (() => Write), object?: string): boolean {
  const privilege = r.objects.privilege(r.userId, c)
  if (privilege === 'owner' || privilege === 'write') return false
  const write = typeof which === 'function' ? which() : which
  const path = write === 'write-content' && object !== undefined ? objectPath(c, object) : collectionPath(c)
  const needed = el(NS.dav, 'resource', href(path) + el(NS.dav, 'privilege', el(NS.dav, write)))
  sendXml(r.reply, 403, errorBody(NS.dav, 'need-privileges', needed))
  return true
}

/** 403 DAV:need-privileges for a change to a shared collection itself (its properties, deleting it, making it). */
export function refuseCollectionChange(r: DavRequest, c: Collection, privilege: 'write-properties' | 'unbind' | 'bind') {
  const needed = el(NS.dav, 'resource', href(collectionPath(c)) + el(NS.dav, 'privilege', el(NS.dav, privilege)))
  return sendXml(r.reply, 403, errorBody(NS.dav, 'need-privileges', needed))
}
