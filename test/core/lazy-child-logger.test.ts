import { Writable } from 'node:stream'
import Fastify, { type FastifyServerOptions } from 'fastify'
import t from 'tap'
import { installErrorHandling } from '../../core/envelope.js'
import { HttpError } from '../../core/errors.js'
import { loggerOptions } from '../../core/logging/index.js'
import { lazyChildLogger } from '../../core/logging/lazy-child.js'

/**
 * The same app twice, one with Fastify's own child-logger factory and one with the lazy one, the same
 * requests (fixed request ids): the lines they log must be the same bytes, but for the clock.
 */
async function linesOf(level: string, factory: FastifyServerOptions['childLoggerFactory'] | undefined): Promise<string[]> {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  const logger = { ...(loggerOptions({ logLevel: level, logFormat: 'json' }) as object), stream }
  const app = Fastify({
    logger,
    ...(factory ? { childLoggerFactory: factory } : {}),
    genReqId: (req) => String(req.headers['x-request-id']),
  })
  installErrorHandling(app)
  app.get('/quiet', async () => ({ ok: true }))
  app.get('/chatty', async (request) => {
    request.log.trace({ step: 1 }, 'trace line')
    request.log.debug({ step: 2 }, 'debug line')
    request.log.info({ step: 3, token: 'secret' }, 'info line')
    request.log.warn('warn line %s', 'formatted')
    request.log.error(new Error('an error object'))
    const child = request.log.child({ part: 'inner' })
    child.warn({ authorization: 'Bearer x' }, 'from a child')
    const bindings = (request.log as typeof request.log & { bindings(): object }).bindings()
    request.log.warn({ bindings, level: request.log.level }, 'bindings and level')
    return { ok: true }
  })
  app.get('/louder', async (request) => {
    request.log.level = 'trace'
    request.log.trace('after raising the level')
    request.log.debug({ level: request.log.level }, 'debug after raising')
    return { ok: true }
  })
  app.get('/boom', async () => {
    throw new Error('kaput')
  })
  app.get('/refused', async () => {
    throw new HttpError('FORBIDDEN')
  })
  app.get('/own-level', { logLevel: 'debug' }, async (request) => {
    request.log.debug('a route with its own level')
    return { ok: true }
  })
  await app.ready()
  let n = 0
  for (const url of ['/quiet', '/chatty', '/louder', '/boom', '/refused', '/own-level', '/missing', '/chatty?token=abc']) {
    await app.inject({ method: 'GET', url, headers: { 'x-request-id': `req-${++n}`, authorization: 'Bearer secret-token' } })
  }
  await app.close()
  // The clock is the only difference allowed.
  return lines.map((line) => line.replace(/"time":\d+/, '"time":0').replace(/"responseTime":[\d.e-]+/, '"responseTime":0'))
}

for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'silent']) {
  t.test(`at ${level}: the lines are the same bytes as with Fastify's own child loggers`, async (t) => {
    const eager = await linesOf(level, undefined)
    const lazy = await linesOf(level, lazyChildLogger)
    t.same(lazy, eager)
    if (level === 'info') {
      t.ok(
        eager.some((line) => line.includes('"reqId":"req-2"') && line.includes('info line')),
        'a line a handler logs carries its request id',
      )
      t.ok(
        eager.some((line) => line.includes('"reqId":"req-4"') && line.includes('request failed')),
        'a failing request is logged with its id',
      )
    }
    if (level === 'warn') {
      t.ok(eager.length > 0, 'warn: the handlers logged')
      t.notOk(
        eager.some((line) => line.includes('"reqId":"req-1"')),
        'warn: a request that logs nothing leaves no line',
      )
    }
  })
}

t.test('no pino child is made for a request that logs nothing at the level', async (t) => {
  let made = 0
  const counting: FastifyServerOptions['childLoggerFactory'] = function (logger, bindings, options, raw) {
    const parent = logger as typeof logger & { child: typeof logger.child }
    const child = parent.child.bind(parent)
    const spy = Object.create(parent) as typeof logger
    spy.child = (b, o) => {
      made++
      return child(b, o)
    }
    return lazyChildLogger.call(this, spy, bindings, options, raw)
  }
  const stream = new Writable({ write: (_c, _e, done) => done() })
  const app = Fastify({ logger: { level: 'warn', stream }, childLoggerFactory: counting })
  app.get('/', async () => ({ ok: true }))
  app.get('/warns', async (request) => {
    request.log.warn('logged')
    return { ok: true }
  })
  await app.inject({ method: 'GET', url: '/' })
  t.equal(made, 0, 'a request that logs nothing')
  await app.inject({ method: 'GET', url: '/warns' })
  t.equal(made, 1, 'a request that logs at the level: one child')
  await app.close()
})

t.test('an app without a logger (logger: false, as the MCP tool table builds it) answers and logs nothing', async (t) => {
  const app = Fastify({ logger: false, childLoggerFactory: lazyChildLogger })
  app.get('/', async (request) => {
    request.log.info('nowhere')
    request.log.child({ step: 1 }).warn('nowhere either')
    return { ok: true }
  })
  const res = await app.inject({ method: 'GET', url: '/' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { ok: true })
  await app.close()
})

t.test('a level lowered while a request is in flight: its lines still carry its reqId', async (t) => {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  const app = Fastify({
    logger: { level: 'info', stream },
    childLoggerFactory: lazyChildLogger,
    genReqId: () => 'req-1',
    disableRequestLogging: true,
  })
  let lower: () => void = () => {}
  const lowered = new Promise<void>((resolve) => (lower = resolve))
  app.get('/', async (request) => {
    await lowered
    request.log.debug('debug line')
    return { ok: true }
  })
  const answer = app.inject({ method: 'GET', url: '/' })
  await new Promise((r) => setTimeout(r, 20))
  app.log.level = 'debug'
  lower()
  t.equal((await answer).statusCode, 200)
  t.match(
    lines.map((l) => JSON.parse(l)),
    [{ msg: 'debug line', reqId: 'req-1' }],
  )
  await app.close()
})
