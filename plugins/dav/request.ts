import type { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type HearthApi, HttpError } from '../../core/plugin-api.js'
import { is, parseXmlPaced, XmlError, type XmlNode } from '../../lib/webdav-xml/index.js'
import type { Collection, DavObject, Objects } from './objects-service.js'
import type { Target } from './paths.js'
import { MAX_OBJECT_BYTES, type PropContext } from './properties.js'
import type { DavStore } from './store.js'

/** What every method's handler works with: the signed-in user, the resolved target, the body and the DAV service. */
export interface DavRequest {
  req: FastifyRequest
  reply: FastifyReply
  api: HearthApi
  objects: Objects
  store: DavStore
  userId: string
  target: Target
  /** The body as text ('' for none). */
  body: string
  /** The body read as XML by `readXmlBody` (null for none or not read; the XmlError when it is not XML). */
  xml: XmlNode | XmlError | null
  props: PropContext
  /** Whether a collection exists for the user (their address book always does; another member's while it is shared with them). */
  exists(c: Collection): boolean
}

const XML_TYPE = 'application/xml; charset=utf-8'

export function davRequest(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: { api: HearthApi; objects: Objects; store: DavStore },
  auth: { userId: string; email: string },
  target: Target,
): DavRequest {
  const { objects, store } = deps
  const { userId } = auth
  // The last object's text, kept while its properties are written (getcontentlength and address-data
  // both need it): one object at a time, so an answer over many large objects holds one of them.
  let last: { obj: DavObject; text: string } | null = null
  const props: PropContext = {
    userId,
    email: auth.email,
    objects,
    store,
    privilege: (c) => objects.privilege(userId, c),
    member(id) {
      const m = deps.api.auth.member(id)
      return m && { name: m.name?.trim() || m.email, email: m.email }
    },
    text(obj) {
      if (last?.obj !== obj) {
        if (target.type !== 'collection' && target.type !== 'object') throw new HttpError('INTERNAL_ERROR')
        last = { obj, text: objects.render(userId, target.collection, obj) }
      }
      return last.text
    },
  }
  return {
    req,
    reply,
    ...deps,
    userId,
    target,
    body: typeof req.body === 'string' ? req.body : '',
    xml: null,
    props,
    // The Invitations collection always answers (an emptied one syncs to empty); the home lists it while it holds any.
    exists: (c) =>
      c.invitations
        ? true
        : c.owner !== undefined
          ? objects.privilege(userId, c) !== null
          : c.kind === 'card' || objects.calendars(userId, c.kind).includes(c.name),
  }
}

/**
 * Reads the body as XML before the method runs, giving the event loop back while it reads: a body of
 * up to a megabyte held the loop (and the DNS answers that share it) for the whole parse.
 */
export async function readXmlBody(r: DavRequest): Promise<void> {
  if (!r.body.trim()) return
  try {
    r.xml = await parseXmlPaced(r.body, MAX_OBJECT_BYTES)
  } catch (err) {
    if (!(err instanceof XmlError)) throw err
    r.xml = err
  }
}

/** The request's XML (`readXmlBody`), checked to be the expected root element (any root when name is ''); null for an empty optional body. */
export function xmlBody(xml: XmlNode | XmlError | null, ns: string, name: string, optional: true): XmlNode | null
export function xmlBody(xml: XmlNode | XmlError | null, ns: string, name: string, optional: false): XmlNode
export function xmlBody(xml: XmlNode | XmlError | null, ns: string, name: string, optional: boolean): XmlNode | null {
  if (!xml) {
    if (optional) return null
    throw new HttpError('VALIDATION_ERROR', 'an XML body is required', { field: 'body', constraint: 'required' })
  }
  if (xml instanceof XmlError) throw new HttpError('VALIDATION_ERROR', xml.message, { field: 'body', constraint: 'xml' })
  const root = xml
  if (name && !is(root, ns, name))
    throw new HttpError('VALIDATION_ERROR', `expected a ${name} element`, { field: 'body', constraint: 'xml' })
  return root
}

/** An XML answer held as one string (small by construction). */
export function sendXml(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type(XML_TYPE).send(body)
}

/** A multistatus answer streamed as it is written (lib/webdav-xml's multistatusStream). */
export function sendMultistatus(reply: FastifyReply, stream: Readable) {
  return reply.code(207).type(XML_TYPE).send(stream)
}

export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v.join(',') : v
}
