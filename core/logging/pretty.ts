import { Writable } from 'node:stream'

/**
 * Human-readable log lines for a terminal: pino writes one JSON object per line, this turns each into
 * `12:00:01.234 INFO  [request id] message key=value …`. Ours rather than pino-pretty: no dependency,
 * no worker thread (the daemon runs from a bundle), and it is only ever used on a TTY.
 */

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '90'],
  20: ['DEBUG', '36'],
  30: ['INFO ', '32'],
  40: ['WARN ', '33'],
  50: ['ERROR', '31'],
  60: ['FATAL', '35'],
}
/** Fields shown in the prefix, or noise on a terminal. */
const OMIT = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime', 'err', 'v'])

const paint = (color: boolean, code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[39m` : text)

function clock(time: unknown): string {
  const d = typeof time === 'number' ? new Date(time) : new Date()
  return d.toISOString().slice(11, 23)
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value
  return JSON.stringify(value) ?? String(value)
}

/** One pino JSON line → one terminal line (and an error's stack below it). Not JSON: returned unchanged. */
export function formatLine(line: string, color = false): string {
  let entry: Record<string, unknown>
  try {
    entry = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line
  }
  if (entry === null || typeof entry !== 'object') return line
  const [name, code] = LEVELS[entry.level as number] ?? [String(entry.level).padEnd(5), '39']
  const parts = [paint(color, '90', clock(entry.time)), paint(color, code, name)]
  if (typeof entry.reqId === 'string') parts.push(paint(color, '90', `[${entry.reqId}]`))
  const req = entry.req as { method?: string; url?: string } | undefined
  const res = entry.res as { statusCode?: number } | undefined
  if (req?.method) parts.push(`${req.method} ${req.url ?? ''}`)
  if (typeof entry.msg === 'string') parts.push(entry.msg)
  if (res?.statusCode) parts.push(`→ ${res.statusCode}`)
  if (typeof entry.responseTime === 'number') parts.push(`${entry.responseTime.toFixed(1)} ms`)
  for (const [key, value] of Object.entries(entry)) if (!OMIT.has(key)) parts.push(`${key}=${scalar(value)}`)
  const err = entry.err as { stack?: string; message?: string } | undefined
  const tail = err ? `\n${err.stack ?? err.message ?? ''}` : ''
  return parts.join(' ') + tail
}

/** A stream pino writes to; each formatted line goes to `out`. */
export function prettyStream(out: NodeJS.WritableStream & { isTTY?: boolean }): Writable {
  const color = Boolean(out.isTTY) && !process.env.NO_COLOR
  let pending = ''
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      pending += chunk.toString()
      let nl = pending.indexOf('\n')
      while (nl !== -1) {
        const line = pending.slice(0, nl)
        pending = pending.slice(nl + 1)
        if (line) out.write(`${formatLine(line, color)}\n`)
        nl = pending.indexOf('\n')
      }
      done()
    },
  })
}
