import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify'

/**
 * Fastify's per-request logger, made when something logs (issue 11: 0.4 µs of CPU per request).
 *
 * Fastify gives every request a pino child bound to its `reqId`; making one serializes the binding to
 * JSON ahead of any line. At the daemon's usual levels most requests never log through it (at `warn`
 * Fastify's two request lines are below the level, and our error handler logs only failures), so the
 * request gets a stand-in that inherits everything from the server's logger, with two differences:
 * a call at a level the server's logger has enabled (and whatever needs the bindings: `child`, `bindings`,
 * `setBindings`, setting `level`) first makes the real child, `parent.child({ reqId })`, once, and hands
 * over to it; a call below the level returns at once, as a real child's no-op does. Every line is
 * therefore written by a real pino child with the same bindings, serializers and redaction as before
 * (test/core/lazy-child-logger.test.ts compares the lines with Fastify's own factory's at each level).
 *
 * A route with its own `logLevel` or `logSerializers` gets a real child at once, as Fastify makes it.
 */
type Pino = FastifyBaseLogger & { levelVal: number; levels: { values: Record<string, number> }; isLevelEnabled(level: string): boolean }
type Bindings = Record<string, unknown>

const BINDINGS = Symbol('hearth.logBindings')
const REAL = Symbol('hearth.realLogger')
interface StandIn {
  [BINDINGS]: Bindings
  [REAL]: Pino | undefined
}

/** One prototype per parent logger: what a stand-in inherits and overrides. */
const prototypes = new WeakMap<Pino, object>()

function prototypeFor(parent: Pino): object {
  const cached = prototypes.get(parent)
  if (cached) return cached
  const real = (self: StandIn): Pino => (self[REAL] ??= parent.child(self[BINDINGS]) as Pino)
  const proto = Object.create(parent) as Record<string | symbol, unknown>
  for (const [name, value] of Object.entries(parent.levels.values)) {
    // The parent's level is read at each call, not when the prototype is made: a level lowered while a request
    // is in flight (a plugin can set `app.log.level`) logs that request's lines with its reqId, as a real child would.
    proto[name] = function (this: StandIn, ...args: unknown[]) {
      if (value < parent.levelVal) return
      const logger = real(this) as unknown as Record<string, (...a: unknown[]) => void>
      return logger[name]?.(...args)
    }
  }
  proto.child = function (this: StandIn, bindings: Bindings, options?: object) {
    return real(this).child(bindings, options)
  }
  proto.bindings = function (this: StandIn) {
    return (real(this) as unknown as { bindings(): Bindings }).bindings()
  }
  proto.setBindings = function (this: StandIn, bindings: Bindings) {
    ;(real(this) as unknown as { setBindings(b: Bindings): void }).setBindings(bindings)
  }
  Object.defineProperty(proto, 'level', {
    get(this: StandIn) {
      return this[REAL]?.level ?? parent.level
    },
    // A level set on the request's logger is the real child's from then on, and so is everything else.
    set(this: StandIn, level: string) {
      const logger = real(this)
      logger.level = level
      Object.setPrototypeOf(this, logger)
    },
  })
  prototypes.set(parent, proto)
  return proto
}

const isPino = (logger: Pino): boolean => typeof logger.isLevelEnabled === 'function' && typeof logger.levels?.values === 'object'

export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => {
  const parent = logger as Pino
  // Fastify passes the route's level and serializers here when it has them: those get a real child now, and
  // so does a logger that is not pino (`logger: false` gives Fastify's no-op logger, with no levels to read).
  if (options.level !== undefined || options.serializers !== undefined || !isPino(parent)) return parent.child(bindings, options)
  const standIn = Object.create(prototypeFor(parent)) as StandIn
  standIn[BINDINGS] = bindings
  standIn[REAL] = undefined
  return standIn as unknown as FastifyBaseLogger
}
