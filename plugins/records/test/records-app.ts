import type { HearthEvent } from '../../../core/events.js'
import records from '../index.js'
import { addUser, auth, build, owner, recordEvents, type TestApp, type TestContext } from '../../../test/helper.js'

/**
 * A records test bench: an app with an owner, a movable clock, the events
 * the bus published, and a `call` that goes through the real HTTP stack.
 */
export interface Call {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON came back and asserts its shape itself
  (method: string, path: string, payload?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>
}

export interface Bench {
  app: TestApp
  call: Call
  /** Calls as a second user of the same instance. */
  asOther: () => Promise<Call>
  events: HearthEvent[]
  /** The owner's access token. */
  token: string
  clock: { ms: number; advance(ms: number): void }
}

/** Calls to the API of `app` as the holder of `token`: status and parsed body. */
export const callerOf =
  (app: TestApp) =>
  (token: string): Call =>
  async (method, path, payload, headers = {}) => {
    const res = await app.inject({
      method: method as 'GET',
      url: `/api/v1${path}`,
      headers: auth(token, headers),
      payload: payload as object,
    })
    return { status: res.statusCode, body: res.body ? res.json() : null }
  }

export const START = Date.parse('2026-11-18T10:00:00.000Z') // a Wednesday

/** `existing`: the data folder already has its owner (a restart); sign in instead of setting up. */
export async function bench(
  t: TestContext,
  opts: { env?: Record<string, string>; dataDir?: string; at?: number; existing?: boolean } = {},
): Promise<Bench> {
  const clock = {
    ms: opts.at ?? START,
    advance(ms: number) {
      this.ms += ms
    },
  }
  // Only this plugin: sibling plugins under construction must not break these tests.
  const app = await build(t, { env: opts.env, dataDir: opts.dataDir, now: () => clock.ms, plugins: [records as never] })
  const user = opts.existing ? await signIn(app) : await owner(app)
  const events = recordEvents(app, '*')
  const caller = callerOf(app)
  return {
    app,
    call: caller(user.token),
    asOther: async () => caller((await addUser(app, user.token)).token),
    events,
    token: user.token,
    clock,
  }
}

async function signIn(app: TestApp): Promise<{ token: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: 'owner@example.test', password: 'correct horse battery' },
  })
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`)
  return { token: res.json().data.accessToken }
}

/** Events of records (note.*, contact.*, event.*, task.*) only, as [type, id] pairs. */
export const recordEventsOf = (events: HearthEvent[]) =>
  events.filter((e) => /^(note|contact|event|task)\./.test(e.type)).map((e) => [e.type, e.id] as [string, string | undefined])

/** A multipart/form-data body with one file part, as browsers send it. */
export function upload(filename: string, content: Buffer | string, type = 'application/octet-stream') {
  const boundary = `----hearthTest${Math.random().toString(16).slice(2)}`
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

/** Uploads a file to `/<resource>/import` as a bench's user: the answer's status and `data`. */
export async function importInto(b: Pick<Bench, 'app' | 'token'>, resource: string, filename: string, content: Buffer | string) {
  const body = upload(filename, content)
  const res = await b.app.inject({
    method: 'POST',
    url: `/api/v1/${resource}/import`,
    payload: body.payload,
    headers: { authorization: `Bearer ${b.token}`, ...body.headers },
  })
  return { status: res.statusCode, data: res.json().data as { imported: number; ids: string[]; failed: Array<Record<string, unknown>> } }
}

/** The export file of a resource as a bench's user sees it. */
export async function exportOf(b: Pick<Bench, 'app' | 'token'>, resource: string): Promise<string> {
  return (await b.app.inject({ method: 'GET', url: `/api/v1/${resource}/export`, headers: { authorization: `Bearer ${b.token}` } })).body
}
