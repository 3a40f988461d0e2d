/**
 * A local AI provider speaking the OpenAI wire format (POST /v1/embeddings,
 * /v1/chat/completions) and Ollama's (POST /api/embed, /api/chat), with a
 * deterministic embedder: bag of words, each word hashed (FNV-1a) into one of
 * 384 dimensions, so which record is nearest a query is known in advance.
 *
 * Vision: an image's bytes are searched for "scene: <words>" (the fixture
 * JPEGs carry it in a comment segment); the answer is the JSON the photos
 * plugin asks for. A wrong key gets OpenAI's 401, echoing the key as OpenAI's
 * "Incorrect API key provided" does (the daemon must redact it).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from '../../../test/helper.js'

export const DIMS = 384

export function embedText(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0)
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 0x811c9dc5
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0
    v[h % DIMS] += 1
  }
  return v
}

export interface StubCall {
  path: string
  authorization: string | null
  body: Record<string, unknown>
}

export interface ProviderStub {
  url: string
  calls: StubCall[]
  /** 'up'; 'error' answers 503; 'hang' never answers. */
  state: 'up' | 'error' | 'hang'
  /** When set, OpenAI routes need `Bearer <key>`. */
  expectedKey: string | null
  server: Server
}

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })

function visionAnswer(base64: string): string {
  const bytes = Buffer.from(base64, 'base64').toString('latin1')
  const scene = /scene: ([a-z ]+)/.exec(bytes)?.[1]?.trim() ?? 'something'
  return `Here you go: {"caption": "A photo of ${scene}", "labels": ${JSON.stringify(scene.split(' '))}}`
}

export async function startProviderStub(t: TestContext): Promise<ProviderStub> {
  const stub: ProviderStub = { url: '', calls: [], state: 'up', expectedKey: null, server: null as unknown as Server }
  stub.server = createServer(async (req, res) => {
    const raw = await read(req)
    const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>
    stub.calls.push({ path: req.url ?? '', authorization: req.headers.authorization ?? null, body })
    if (stub.state === 'hang') return
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(json))
    }
    if (stub.state === 'error') return send(503, { error: { message: 'model overloaded' } })
    if (req.url?.startsWith('/v1/') && stub.expectedKey) {
      const given = (req.headers.authorization ?? '').replace(/^Bearer /, '')
      if (given !== stub.expectedKey)
        return send(401, {
          error: {
            message: `Incorrect API key provided: ${given}. You can find your API key at https://platform.example/account/api-keys.`,
          },
        })
    }
    const inputs = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input ?? '')]
    if (req.method === 'POST' && req.url === '/v1/embeddings') {
      return send(200, {
        object: 'list',
        model: body.model,
        data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: embedText(text) })),
      })
    }
    if (req.method === 'POST' && req.url === '/api/embed') return send(200, { model: body.model, embeddings: inputs.map(embedText) })
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      const messages = body.messages as Array<{ content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> }>
      const parts = messages.flatMap((m) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content))
      const image = parts.find((p) => p.type === 'image_url')
      const content = image ? visionAnswer(image.image_url!.url.split(',')[1]) : `echo: ${parts.map((p) => p.text ?? '').join(' ')}`
      return send(200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      })
    }
    if (req.method === 'POST' && req.url === '/api/chat') {
      const messages = body.messages as Array<{ content: string; images?: string[] }>
      const image = messages.find((m) => m.images?.length)?.images?.[0]
      const content = image ? visionAnswer(image) : `echo: ${messages.map((m) => m.content).join(' ')}`
      return send(200, { model: body.model, message: { role: 'assistant', content }, done: true })
    }
    send(404, { error: { message: `no route ${req.method} ${req.url}` } })
  })
  await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve))
  stub.url = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}`
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        stub.server.closeAllConnections()
        stub.server.close(() => resolve())
      }),
  )
  return stub
}

/** Polls GET /api/v1/ai/index until the index is built and nothing is pending. */
export async function waitForIndex(
  app: { inject: (o: object) => Promise<{ json: () => { data: { status: string; pending: number } } }> },
  headers: Record<string, string>,
): Promise<{ status: string; pending: number; [k: string]: unknown }> {
  for (let i = 0; i < 500; i++) {
    const state = (await app.inject({ method: 'GET', url: '/api/v1/ai/index', headers })).json().data
    if (state.status !== 'running' && state.pending === 0) return state
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error('the semantic index did not settle')
}
