import records from '../../records/index.js'
import dav from '../index.js'
import { addUser, apiKey, auth, build, owner, type TestApp, type TestContext } from '../../../test/helper.js'

/** A DAV test bench: an app with the records and dav plugins, an owner, a dav key and a Basic-signed `dav` call. */
export interface DavBench {
  app: TestApp
  token: string
  email: string
  key: string
  basic: Record<string, string>
  dav(
    method: string,
    url: string,
    body?: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: string; headers: Record<string, unknown> }>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON came back and asserts its shape itself
  json(method: string, url: string, payload?: unknown): Promise<{ status: number; body: any }>
}

export const basicHeader = (email: string, key: string) => ({ authorization: `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}` })

export async function davBench(t: TestContext, env: Record<string, string> = {}): Promise<DavBench> {
  const app = await build(t, { env, plugins: [records as never, dav as never] })
  const o = await owner(app)
  const key = await apiKey(app, o.token, { scope: 'dav' })
  const basic = basicHeader(o.email, key)
  return { app, token: o.token, email: o.email, key, basic, ...callers(app, basic, o.token) }
}

/** Another member of the bench's household (added by its owner), with a dav key of their own and the same two calls. */
export async function davMember(b: DavBench) {
  const user = await addUser(b.app, b.token)
  const key = await apiKey(b.app, b.token, { scope: 'dav', user_id: user.userId })
  return { ...user, key, ...callers(b.app, basicHeader(user.email, key), user.token) }
}

/** A member's DAV requests (HTTP Basic) and JSON API requests (their bearer token). */
function callers(app: TestApp, basic: Record<string, string>, token: string): Pick<DavBench, 'dav' | 'json'> {
  return {
    async dav(method, url, body, headers = {}) {
      const res = await app.inject({
        method: method as 'GET',
        url,
        headers: { ...basic, ...(body !== undefined && !headers['content-type'] ? { 'content-type': 'application/xml' } : {}), ...headers },
        ...(body !== undefined ? { payload: body } : {}),
      })
      return { status: res.statusCode, body: res.body, headers: res.headers }
    },
    async json(method, url, payload) {
      const res = await app.inject({
        method: method as 'GET',
        url,
        headers: auth(token),
        ...(payload !== undefined ? { payload: payload as object } : {}),
      })
      return { status: res.statusCode, body: res.body ? res.json() : null }
    },
  }
}

export const PROPFIND = (...props: string[]) =>
  `<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:card="urn:ietf:params:xml:ns:carddav" xmlns:cs="http://calendarserver.org/ns/"><d:prop>${props.map((p) => `<${p}/>`).join('')}</d:prop></d:propfind>`

export const SYNC = (token = '') =>
  `<?xml version="1.0"?><d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`

/** hrefs of a multistatus answer, with the status of each (200 when it has a 200 propstat). */
export function hrefs(body: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const m of body.matchAll(/<d:response><d:href>([^<]*)<\/d:href>([\s\S]*?)<\/d:response>/g)) {
    const status = /<d:status>HTTP\/1\.1 (\d{3})/.exec(m[2] ?? '')
    out.set(m[1] as string, Number(status?.[1] ?? 0))
  }
  return out
}

export const tokenOf = (body: string) => /<d:sync-token>([^<]*)<\/d:sync-token><\/d:multistatus>/.exec(body)?.[1] ?? ''

export const VCARD = (uid: string, fn: string, extra = '') =>
  `BEGIN:VCARD\r\nVERSION:3.0\r\nUID:${uid}\r\nFN:${fn}\r\nN:${fn};;;;\r\n${extra}END:VCARD\r\n`

/** A VTODO with these content lines (SUMMARY, DUE, RELATED-TO...), as task clients write one. */
export const VTODO = (uid: string, lines: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:${uid}\r\nDTSTAMP:20261101T000000Z\r\n${lines}END:VTODO\r\nEND:VCALENDAR\r\n`

export const VEVENT = (uid: string, summary: string, start = '20260302T090000Z', extra = '') =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${start}\r\nDURATION:PT1H\r\nSUMMARY:${summary}\r\n${extra}END:VEVENT\r\nEND:VCALENDAR\r\n`
