import type { FastifyReply, FastifyRequest } from 'fastify'
import { type HearthApi, HttpError, type PluginInstance } from '../../core/plugin-api.js'
import { remove } from './methods/delete.js'
import { get } from './methods/get.js'
import { mkcol } from './methods/mkcol.js'
import { propfind } from './methods/propfind.js'
import { proppatch } from './methods/proppatch.js'
import { put } from './methods/put.js'
import { report } from './methods/report.js'
import type { Objects } from './objects-service.js'
import { resolve, ROOT } from './paths.js'
import { MAX_OBJECT_BYTES } from './properties.js'
import { type DavRequest, davRequest, readXmlBody } from './request.js'
import { hidden } from './shared-access.js'
import type { DavStore } from './store.js'

/** Methods fastify does not route by default; all carry a body. */
const EXTRA_METHODS = ['PROPFIND', 'PROPPATCH', 'REPORT', 'MKCALENDAR', 'MKCOL']
const METHODS = ['OPTIONS', 'GET', 'PUT', 'DELETE', ...EXTRA_METHODS]
const DAV_HEADER = '1, 3, calendar-access, addressbook'
/** What a route that answers outside the JSON API declares: no guard (Basic sign-in is ours), no envelope, not in the OpenAPI document. */
const RAW = { config: { auth: false, envelope: 'none' as const }, schema: { hide: true } }

/** One module per method family (methods/), each over the DAV service. */
const HANDLERS: Record<string, (r: DavRequest) => unknown> = {
  PROPFIND: propfind,
  PROPPATCH: proppatch,
  REPORT: report,
  MKCALENDAR: mkcol,
  MKCOL: mkcol,
  GET: get,
  HEAD: get,
  PUT: put,
  DELETE: remove,
}

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
    const target = resolve((req.params as { '*'?: string })['*'] ?? '')
    if (!target) {
      // Writing below a collection that does not exist: the parent is missing (RFC 4918 9.3.1, 9.7.1).
      if (req.method === 'PUT' || req.method === 'MKCOL' || req.method === 'MKCALENDAR')
        throw new HttpError('CONFLICT', 'The parent collection does not exist')
      throw new HttpError('NOT_FOUND', 'No such DAV resource')
    }
    const handle = HANDLERS[req.method]
    if (!handle) throw new HttpError('METHOD_NOT_ALLOWED')
    const r = davRequest(req, reply, { api, objects, store }, { userId: auth.userId as string, email: auth.email ?? '' }, target)
    if (hidden(r)) throw new HttpError('NOT_FOUND', 'No such DAV resource')
    if (EXTRA_METHODS.includes(req.method)) await readXmlBody(r)
    return handle(r)
  }
}
