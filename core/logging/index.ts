import type { FastifyServerOptions } from 'fastify'
import { prettyStream } from './pretty.js'
import { REDACT_PATHS, redactUrl } from './redact.js'

export type LogFormat = 'auto' | 'json' | 'pretty'

export interface LogSettings {
  logLevel: string
  logFormat: LogFormat
}

interface LoggedRequest {
  method: string
  url: string
  ip?: string
}

/**
 * The daemon's pino options: one JSON object per line on stdout (what journald and log shippers read),
 * or readable lines when stdout is a terminal (`HEARTH_LOG_FORMAT=auto`, the default). Every line a
 * request produces carries its `reqId` (fastify binds it); credentials are scrubbed from URLs and headers.
 */
export function loggerOptions(settings: LogSettings, out: NodeJS.WriteStream = process.stdout): FastifyServerOptions['logger'] {
  const pretty = settings.logFormat === 'pretty' || (settings.logFormat === 'auto' && out.isTTY === true)
  return {
    level: settings.logLevel,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.ip,
      }),
    },
    ...(pretty ? { stream: prettyStream(out) } : {}),
  }
}
