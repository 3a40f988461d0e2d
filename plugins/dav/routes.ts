import type { FastifyReply, FastifyRequest } from 'fastify'
import { type HearthApi, HttpError, type PluginInstance } from '../../core/plugin-api.js'
import type { DavObject, Objects } from './objects-service.js'
import { ADDRESS_BOOK, type Collection } from './objects-service.js'
import { CALENDAR_TYPE, CARD_TYPE } from './objects.js'
import { ADDRESSBOOK_HOME, CALENDAR_HOME, collectionPath, objectPath, PRINCIPAL, resolve, ROOT, type Target } from './paths.js'
import { MAX_OBJECT_BYTES, type PropContext, propsOf, requested } from './properties.js'
import { MAX_REPORT_ITEMS, report } from './reports.js'
import type { DavStore } from './store.js'
import { planPatch } from './collection-props.js'
import {
  documentOf,
  is,
  multistatus,
  NS,
  parseXml,
  propstatResponse,
  propstats,
  response,
  statusResponse,
  XmlError,
  type XmlNode,
  xmlReady,
} from './xml.js'

/** Methods fastify does not route by default; all carry a body. */
const EXTRA_METHODS = ['PROPFIND', 'PROPPATCH', 'REPORT', 'MKCALENDAR', 'MKCOL']
const METHODS = ['OPTIONS', 'GET', 'PUT', 'DELETE', ...EXTRA_METHODS]
const DAV_HEADER = '1, 3, calendar-access, addressbook'
const XML_TYPE = 'application/xml; charset=utf-8'
/** What a route that answers outside the JSON API declares: no guard (Basic sign-in is ours), no envelope, not in the OpenAPI document. */
const RAW = { config: { auth: false, envelope: 'none' as const }, schema: { hide: true } }

export async function davRoutes(app: PluginInstance, api: HearthApi, objects: Objects, store: DavStore): Promise<void> {
  for (const m of EXTRA_METHODS) if (!app.supportedMethods.includes(m)) app.addHttpMethod(m, { hasBody: true })
  // DAV bodies are XML, vCard or iCalendar, read as text here only (the JSON API keeps its parsers).
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_OBJECT_BYTES }, (_req, body, done) => done(null, body))

  // RFC 6764: a client given only the host name finds the server here.
  for (const url of ['/.well-known/caldav', '/.well-known/carddav']) {
    app.route({ method: METHODS, url, ...RAW, handler: async (_req, reply) => reply.code(301).header('location', ROOT).send() })
  }
  const handler = async (req: FastifyRequest, reply: FastifyReply) => dispatch(req, reply)
  app.route({ method: METHODS, url: '/dav', ...RAW, handler })
  app.route({ method: METHODS, url: '/dav/*', ...RAW, handler })

  async function dispatch(req: FastifyRequest, reply: FastifyReply) {
    reply.header('dav', DAV_HEADER)
    if (req.method === 'OPTIONS') {
      return reply
        .code(200)
        .header('allow', [...METHODS, 'HEAD'].join(', '))
        .header('content-length', '0')
        .send()
    }
    const auth = api.auth.basic(req.headers.authorization, req.ip, 'dav')
    const userId = auth.userId as string
    const rest = (req.params as { '*'?: string })['*'] ?? ''
    const target = resolve(rest)
    if (!target) {
      // Writing below a collection that does not exist: the parent is missing (RFC 4918 9.3.1, 9.7.1).
      if (req.method === 'PUT' || req.method === 'MKCOL' || req.method === 'MKCALENDAR')
        throw new HttpError('CONFLICT', 'The parent collection does not exist')
      throw new HttpError('NOT_FOUND', 'No such DAV resource')
    }
    const body = typeof req.body === 'string' ? req.body : ''
    const rendered = new Map<DavObject, string>()
    const ctx: PropContext = {
      userId,
      email: auth.email ?? '',
      objects,
      store,
      text(obj) {
        let text = rendered.get(obj)
        if (text === undefined) {
          text = objects.render(userId, collectionOfObject(obj), obj)
          rendered.set(obj, text)
        }
        return text
      },
    }
    // render needs the object's collection: the request's target names it.
    const collectionOfObject = (_obj: DavObject): Collection => {
      if (target.type === 'collection' || target.type === 'object') return target.collection
      throw new HttpError('INTERNAL_ERROR')
    }
    const exists = (c: Collection) => c.kind === 'card' || objects.calendars(userId).includes(c.name)
    // The XML parser is loaded by the first body that needs it (xml.ts).
    if (body.trim() && EXTRA_METHODS.includes(req.method)) await xmlReady()

    switch (req.method) {
      case 'PROPFIND':
        return propfind(reply, ctx, target, xmlBody(body, NS.dav, 'propfind', true), String(req.headers.depth ?? 'infinity'), exists)
      case 'PROPPATCH': {
        const root = xmlBody(body, NS.dav, 'propertyupdate', false) as XmlNode
        // A collection's name, description, colour and order can be set; nothing else (RFC 4918 9.2: all or none).
        const collection = target.type === 'collection' ? target.collection : null
        if (collection && !exists(collection)) throw new HttpError('NOT_FOUND', 'No such collection')
        const plan = planPatch(collection?.kind ?? null, root.children, false)
        if (plan.ok && collection) store.patchCollection(userId, collection.kind, collection.name, plan.changes)
        return xml(reply, 207, multistatus([propstatResponse(req.url.split('?')[0] ?? ROOT, plan.statuses)]))
      }
      case 'REPORT': {
        if (target.type !== 'collection' || !exists(target.collection))
          throw new HttpError('NOT_FOUND', 'REPORT applies to a calendar or the address book')
        const answer = report(ctx, objects, target.collection, xmlBody(body, '', '', false) as XmlNode)
        return xml(reply, answer.status, answer.body)
      }
      case 'MKCALENDAR':
      case 'MKCOL': {
        // A body (calendar properties) must be XML: anything else is an unknown format (RFC 4918 9.3).
        let root: XmlNode | undefined
        if (body.trim()) {
          try {
            root = parseXml(body)
          } catch (err) {
            if (err instanceof XmlError) throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'A MKCALENDAR/MKCOL body is XML')
            throw err
          }
        }
        if (target.type !== 'collection' || target.collection.kind !== 'event')
          throw new HttpError('FORBIDDEN', 'Only calendars can be created, under /dav/calendars/')
        if (exists(target.collection)) throw new HttpError('METHOD_NOT_ALLOWED', 'That calendar exists')
        const name = target.collection.name
        if (name.length > 200) throw new HttpError('VALIDATION_ERROR', 'calendar name too long', { field: 'name', constraint: 'maxLength' })
        // The body's DAV:set properties are set with the creation or nothing is created (RFC 4791 5.3.1, RFC 5689 3).
        const mkcol = req.method === 'MKCOL'
        const creation = is(root, NS.caldav, 'mkcalendar') || is(root, NS.dav, 'mkcol') ? root.children : []
        const plan = planPatch('event', creation, true)
        if (!plan.ok)
          return xml(
            reply,
            403,
            documentOf(mkcol ? NS.dav : NS.caldav, mkcol ? 'mkcol-response' : 'mkcalendar-response', propstats(plan.statuses)),
          )
        store.patchCollection(userId, 'event', name, plan.changes, () => store.addCalendar(userId, name, new Date(api.now()).toISOString()))
        return reply.code(201).header('content-length', '0').send()
      }
      case 'GET':
      case 'HEAD': {
        if (target.type !== 'object') return reply.code(200).type('text/plain; charset=utf-8').send('Hearth CalDAV/CardDAV\n')
        const obj = objects.find(userId, target.collection, target.name)
        if (!obj) throw new HttpError('NOT_FOUND', 'No such object')
        return reply
          .code(200)
          .header('etag', obj.etag)
          .type(target.collection.kind === 'card' ? CARD_TYPE : CALENDAR_TYPE)
          .send(ctx.text(obj))
      }
      case 'PUT': {
        if (target.type !== 'object') throw new HttpError('METHOD_NOT_ALLOWED', 'PUT a vCard or iCalendar object into a collection')
        if (!exists(target.collection)) throw new HttpError('CONFLICT', 'No such calendar: create it with MKCALENDAR first')
        const type = String(req.headers['content-type'] ?? '').toLowerCase()
        if (type.includes('json') || type.startsWith('multipart/'))
          throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'PUT text/vcard or text/calendar')
        const result = objects.put(userId, target.collection, target.name, body, header(req, 'if-match'), header(req, 'if-none-match'))
        return reply
          .code(result.created ? 201 : 204)
          .header('etag', result.etag)
          .send()
      }
      case 'DELETE': {
        if (target.type === 'object') {
          objects.remove(userId, target.collection, target.name, header(req, 'if-match'))
          return reply.code(204).send()
        }
        if (target.type === 'collection' && target.collection.kind === 'event' && exists(target.collection)) {
          // A calendar goes with its events (to the trash, as the JSON API deletes them).
          for (const obj of objects.members(userId, target.collection)) objects.remove(userId, target.collection, obj.name)
          store.dropCalendar(userId, target.collection.name)
          return reply.code(204).send()
        }
        throw new HttpError('FORBIDDEN', 'This collection cannot be deleted')
      }
      default:
        throw new HttpError('METHOD_NOT_ALLOWED')
    }
  }

  function propfind(
    reply: FastifyReply,
    ctx: PropContext,
    target: Target,
    root: XmlNode | null,
    depth: string,
    exists: (c: Collection) => boolean,
  ) {
    const want = requested(root)
    const one = (t: Target, path: string, obj?: DavObject) => {
      const { found, missing } = propsOf(ctx, t, want, obj)
      return response(path, found, missing)
    }
    const deep = depth !== '0'
    const out: string[] = []
    switch (target.type) {
      case 'root':
        out.push(one(target, ROOT))
        break
      case 'principal':
        out.push(one(target, PRINCIPAL))
        break
      case 'calendar-home':
        out.push(one(target, CALENDAR_HOME))
        if (deep)
          for (const name of objects.calendars(ctx.userId)) {
            const collection: Collection = { kind: 'event', name }
            out.push(one({ type: 'collection', collection }, collectionPath(collection)))
          }
        break
      case 'addressbook-home': {
        out.push(one(target, ADDRESSBOOK_HOME))
        const collection: Collection = { kind: 'card', name: ADDRESS_BOOK }
        if (deep) out.push(one({ type: 'collection', collection }, collectionPath(collection)))
        break
      }
      case 'collection': {
        if (!exists(target.collection)) throw new HttpError('NOT_FOUND', 'No such collection')
        out.push(one(target, collectionPath(target.collection)))
        if (deep) {
          const members = objects.members(ctx.userId, target.collection)
          for (const obj of members.slice(0, MAX_REPORT_ITEMS)) {
            out.push(one({ type: 'object', collection: target.collection, name: obj.name }, objectPath(target.collection, obj.name), obj))
          }
          if (members.length > MAX_REPORT_ITEMS) out.push(statusResponse(collectionPath(target.collection), 507))
        }
        break
      }
      case 'object': {
        const obj = objects.find(ctx.userId, target.collection, target.name)
        if (!obj) throw new HttpError('NOT_FOUND', 'No such object')
        out.push(one(target, objectPath(target.collection, obj.name), obj))
      }
    }
    return xml(reply, 207, multistatus(out))
  }
}

function xml(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type(XML_TYPE).send(body)
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v.join(',') : v
}

/** The request's XML, checked to be the expected root element (any root when name is ''); null for an empty optional body. */
function xmlBody(body: string, ns: string, name: string, optional: boolean): XmlNode | null {
  if (!body.trim()) {
    if (optional) return null
    throw new HttpError('VALIDATION_ERROR', 'an XML body is required', { field: 'body', constraint: 'required' })
  }
  let root: XmlNode
  try {
    root = parseXml(body)
  } catch (err) {
    if (err instanceof XmlError) throw new HttpError('VALIDATION_ERROR', err.message, { field: 'body', constraint: 'xml' })
    throw err
  }
  if (name && !is(root, ns, name))
    throw new HttpError('VALIDATION_ERROR', `expected a ${name} element`, { field: 'body', constraint: 'xml' })
  return root
}
