import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/**
 * One line per answered request, written when it is answered, at a level by its outcome: a success at
 * `debug`, a refusal (4xx) at `info`, a failure (5xx) at `warn` (its error is logged beside it by the
 * error handler). Fastify's own controller writes two lines a request at `info` (arrival and
 * completion); at the default level a household's phones syncing all day now write nothing. journald
 * drops a service's lines past 10,000 in 30 s (its default rate limit), and a log full of successful
 * syncs hides the refusals and failures an admin looks for. `HEARTH_LOG_LEVEL=debug` shows every request.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply)
    const status = reply.statusCode
    const level = status >= 500 ? 'warn' : status >= 400 ? 'info' : 'debug'
    const log = reply.log as FastifyReply['log'] & { isLevelEnabled?: (level: string) => boolean }
    if (log.isLevelEnabled?.(level) === false) return
    log[level]({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}
