import { HttpError } from '../../../core/plugin-api.js'
import { multistatusStream, NS, response } from '../../../lib/webdav-xml/index.js'
import { ADDRESS_BOOK, type Collection } from '../objects-service.js'
import { ADDRESSBOOK_HOME, CALENDAR_HOME, collectionPath, memberPrincipal, PRINCIPAL, ROOT, type Target } from '../paths.js'
import { sharedSegment } from '../shared.js'
import { INVITATIONS } from '../invitations.js'
import { propsOf, type Requested, requested } from '../properties.js'
import { MAX_REPORT_ITEMS, objectResponses } from '../reports.js'
import { type DavRequest, sendMultistatus, xmlBody } from '../request.js'

const INVITATIONS_COLLECTION: Collection = { kind: 'event', name: INVITATIONS, invitations: true }

/** PROPFIND (RFC 4918 9.1): the target and, at Depth 1, its members, streamed within the answer budget. */
export function propfind(r: DavRequest) {
  const want = requested(xmlBody(r.xml, NS.dav, 'propfind', true))
  const deep = String(r.req.headers.depth ?? 'infinity') !== '0'
  const { target } = r
  if (target.type === 'collection' && !r.exists(target.collection)) throw new HttpError('NOT_FOUND', 'No such collection')
  let cutAt = ROOT
  let cut = false
  let members: Iterable<string> = []
  switch (target.type) {
    case 'collection': {
      cutAt = collectionPath(target.collection)
      if (deep) {
        const { collection } = target
        // Members are read as the answer asks for them; one past the count bound says the answer is cut.
        const firstMembers = function* () {
          let n = 0
          for (const obj of r.objects.eachMember(r.userId, collection)) {
            if (n++ === MAX_REPORT_ITEMS) {
              cut = true
              return
            }
            yield obj
          }
        }
        members = objectResponses(r.props, collection, want, firstMembers())
      }
      break
    }
    case 'object': {
      const obj = r.objects.find(r.userId, target.collection, target.name)
      if (!obj) throw new HttpError('NOT_FOUND', 'No such object')
      cutAt = collectionPath(target.collection)
      members = objectResponses(r.props, target.collection, want, [obj])
    }
  }
  return sendMultistatus(
    r.reply,
    multistatusStream({ responses: responses(r, target, want, deep, members), cutAt, alreadyCut: () => cut, budget: r.api.answerBudget() }),
  )
}

function* responses(r: DavRequest, target: Target, want: Requested, deep: boolean, members: Iterable<string>): Generator<string> {
  const one = (t: Target, path: string) => {
    const { found, missing } = propsOf(r.props, t, want)
    return response(path, found, missing)
  }
  switch (target.type) {
    case 'root':
      yield one(target, ROOT)
      return
    case 'principal':
      yield one(target, PRINCIPAL)
      return
    case 'member':
      yield one(target, memberPrincipal(target.id))
      return
    case 'calendar-home':
      yield one(target, CALENDAR_HOME)
      if (deep)
        for (const kind of ['event', 'task'] as const) {
          // A name of the user's own read as a shared collection's href is not theirs over DAV (shared.ts).
          for (const name of r.objects.calendars(r.userId, kind)) {
            if (sharedSegment(name) || (kind === 'event' && name === INVITATIONS)) continue
            const collection: Collection = { kind, name }
            yield one({ type: 'collection', collection }, collectionPath(collection))
          }
          // Then the calendars (task lists) other members share with the user.
          for (const collection of r.objects.sharedWith(r.userId, kind))
            yield one({ type: 'collection', collection }, collectionPath(collection))
        }
      // The user's Invitations, while other members' events name them (invitations.ts).
      if (deep && r.objects.members(r.userId, INVITATIONS_COLLECTION).length)
        yield one({ type: 'collection', collection: INVITATIONS_COLLECTION }, collectionPath(INVITATIONS_COLLECTION))
      return
    case 'addressbook-home': {
      yield one(target, ADDRESSBOOK_HOME)
      const collection: Collection = { kind: 'card', name: ADDRESS_BOOK }
      if (!deep) return
      yield one({ type: 'collection', collection }, collectionPath(collection))
      for (const shared of r.objects.sharedWith(r.userId, 'card'))
        yield one({ type: 'collection', collection: shared }, collectionPath(shared))
      return
    }
    case 'collection':
      yield one(target, collectionPath(target.collection))
      yield* members
      return
    case 'object':
      yield* members
  }
}
