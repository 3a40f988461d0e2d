/**
 * One JSON POST to a provider: a time-out, no redirects (the URL an admin
 * configured is the only place a request goes), a bounded answer, and errors
 * whose text never carries the user's key.
 */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024

/** A provider call that failed: unreachable, timed out, refused or answered nonsense. */
export class ProviderError extends Error {
  constructor(
    message: string,
    /** The provider's HTTP status, when it answered. */
    readonly status: number | null = null,
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}

export interface PostOptions {
  timeoutMs: number
  /** Sent as `Authorization: Bearer <key>`; removed from every error text. */
  apiKey?: string | null
}

export async function postJson(url: string, body: unknown, opts: PostOptions): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`
  const redact = (text: string) => (opts.apiKey ? text.split(opts.apiKey).join('[redacted]') : text)
  let res: Response
  try {
    res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(opts.timeoutMs),
    })
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } }
    const why = e.name === 'TimeoutError' ? `no answer within ${opts.timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message)
    throw new ProviderError(redact(`provider unreachable at ${originOf(url)}: ${why}`))
  }
  const text = await readBounded(res)
  if (!res.ok) throw new ProviderError(redact(`provider answered ${res.status}: ${providerMessage(text)}`), res.status)
  try {
    return JSON.parse(text)
  } catch {
    throw new ProviderError(`provider answered ${res.status} with something that is not JSON`, res.status)
  }
}

async function readBounded(res: Response): Promise<string> {
  const length = Number(res.headers.get('content-length') ?? 0)
  if (length > MAX_ANSWER_BYTES) throw new ProviderError(`provider answer too large (${length} bytes)`, res.status)
  if (!res.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength
    if (size > MAX_ANSWER_BYTES) throw new ProviderError(`provider answer too large (over ${MAX_ANSWER_BYTES} bytes)`, res.status)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The error message of an OpenAI or Ollama error body, short. */
function providerMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: string | { message?: string } }
    const m = typeof body.error === 'string' ? body.error : body.error?.message
    if (m) return m.slice(0, 300)
  } catch {
    // not JSON: the raw text, cut
  }
  return text.slice(0, 300) || '(empty answer)'
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return 'the configured URL'
  }
}
