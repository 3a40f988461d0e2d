import { ProviderError } from './driver.js'

/** What every provider call gets back before its own envelope is read. */
export interface HttpReply {
  status: number
  text: string
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  url: string
  headers?: Record<string, string>
  /** A JSON value (serialised) or a prepared form body. */
  json?: unknown
  form?: URLSearchParams
  timeoutMs?: number
}

/**
 * One HTTP exchange over global fetch with a time-out. Network failures become
 * ProviderError 'unreachable' with a message free of the URL, since some
 * providers carry keys in it.
 */
export async function send(provider: string, req: HttpRequest): Promise<HttpReply> {
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers }
  let body: string | undefined
  if (req.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(req.json)
  } else if (req.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = req.form.toString()
  }
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers,
      body,
      signal: AbortSignal.timeout(req.timeoutMs ?? 15_000),
      redirect: 'error',
    })
    return { status: res.status, text: await res.text() }
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } }
    const reason = e.name === 'TimeoutError' ? 'timed out' : (e.cause?.code ?? 'network error')
    throw new ProviderError(provider, 'unreachable', `${provider} API unreachable (${reason})`)
  }
}

/** Parses a JSON reply; anything else is a 'bad_response'. */
export function parseJson<T>(provider: string, reply: HttpReply): T {
  if (reply.text === '') return {} as T
  try {
    return JSON.parse(reply.text) as T
  } catch {
    throw new ProviderError(
      provider,
      'bad_response',
      `${provider} answered HTTP ${reply.status} with a body that is not JSON`,
      reply.status,
    )
  }
}

/** Maps an HTTP status the provider answered with to an error kind. */
export function kindOfStatus(status: number): 'auth' | 'not_found' | 'rejected' | 'bad_response' {
  if (status === 401 || status === 403) return 'auth'
  if (status === 404) return 'not_found'
  if (status >= 400 && status < 500) return 'rejected'
  return 'bad_response'
}

/** Joins a base URL (with or without a trailing slash) and a path. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}

/** testConnection's rule for every provider: true when the call succeeds, false on any ProviderError. */
export async function succeeds(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call()
    return true
  } catch (err) {
    if (err instanceof ProviderError) return false
    throw err
  }
}
