import { createRequire } from 'node:module'
import t from 'tap'
import { lazyModule } from '../../scripts/lazy-module.js'

/**
 * The bundle's stand-in for a CommonJS module loaded on first use (scripts/bundle.mjs LAZY, issue 11): nothing
 * is loaded until the module is used, then calls, `new`, property reads and writes reach the real module.
 * The second test runs the packages of the LAZY list through it the way their requirers use them.
 */
const require = createRequire(import.meta.url)

t.test('loads on first use, once, and behaves as the module', async (t) => {
  let loads = 0
  class Real {
    constructor(readonly x: number) {}
    twice() {
      return this.x * 2
    }
  }
  const real = Object.assign((a: number) => a + 1, {
    Real,
    version: '1',
    self() {
      return this
    },
  })
  const mod = lazyModule(() => {
    loads++
    return real
  }) as typeof real
  t.equal(loads, 0, 'requiring it loads nothing')
  t.equal(mod(1), 2, 'call')
  t.equal(loads, 1)
  t.equal(mod.version, '1', 'property')
  const made = new mod.Real(4)
  t.ok(made instanceof Real, 'new on an exported class')
  t.equal(made.twice(), 8)
  t.ok('Real' in mod, 'in')
  ;(mod as unknown as { extra: number }).extra = 5
  t.equal((real as unknown as { extra: number }).extra, 5, 'writes reach the module')
  t.equal(mod.self().version, '1', 'methods called on the stand-in read the module through it')
  t.equal(loads, 1, 'loaded once')

  // Properties read when the module is required (`const { fn } = require(...)`) get their own stand-ins.
  let early = 0
  const withEarly = lazyModule(() => {
    early++
    return { escape: (s: string) => `<${s}>`, Klass: Real }
  }, ['escape', 'Klass']) as { escape(s: string): string; Klass: typeof Real }
  const { escape, Klass } = withEarly
  t.equal(early, 0, 'reading a listed property loads nothing')
  t.equal(escape('a'), '<a>')
  t.equal(early, 1)
  t.ok(new Klass(1) instanceof Real)

  class Exported {
    constructor(readonly y: string) {}
  }
  const ctor = lazyModule(() => Exported) as typeof Exported
  const instance = new ctor('a')
  t.ok(instance instanceof Exported, 'new on the stand-in of a class module builds the real class')
  t.equal(instance.y, 'a')
})

t.test('the packages the bundle loads on first use work through the stand-in', async (t) => {
  const yaml = lazyModule(() => require('yaml')) as typeof import('yaml')
  t.equal(yaml.stringify({ a: [1, 'b'] }), (require('yaml') as typeof import('yaml')).stringify({ a: [1, 'b'] }))

  const inject = lazyModule(() => require('light-my-request')) as typeof import('light-my-request')
  const res = await inject((_req, reply) => reply.end('ok'), { method: 'GET', url: '/' })
  t.equal(res.payload, 'ok')

  // Ajv and ajv-formats as the bundle's group file gives them: one module each, Ajv's class read off
  // `.default` when its requirer loads (Fastify's Ajv compiler).
  const group = lazyModule(() => ({ ajv: require('ajv'), formats: require('ajv-formats') })) as {
    ajv: { default: new (o: object) => { compile(s: object): (d: unknown) => boolean } }
    formats: (ajv: object) => object
  }
  const Ajv = (lazyModule(() => group.ajv, ['default']) as typeof group.ajv).default
  const ajv = new Ajv({ strict: false })
  ;(lazyModule(() => group.formats) as typeof group.formats)(ajv)
  const email = ajv.compile({ type: 'string', format: 'email' })
  t.ok(email('a@example.test'))
  t.notOk(email('nope'))

  const AjvJTD = lazyModule(() => require('ajv/dist/jtd')) as new () => { compile(s: object): (d: unknown) => boolean }
  const validate = new AjvJTD().compile({ properties: { n: { type: 'int32' } } })
  t.ok(validate({ n: 1 }))
  t.notOk(validate({ n: 'x' }))

  const ThreadStream = lazyModule(() => require('thread-stream'))
  t.type(ThreadStream, 'function')

  const fflate = require('fflate') as typeof import('fflate')
  const zipSync = lazyModule(() => fflate.zipSync) as typeof fflate.zipSync
  const unzipSync = lazyModule(() => fflate.unzipSync) as typeof fflate.unzipSync
  t.same(unzipSync(zipSync({ 'a.txt': new Uint8Array([1, 2]) }))['a.txt'], new Uint8Array([1, 2]))

  const Busboy = lazyModule(() => require('@fastify/busboy')) as new (o: object) => { on: unknown }
  t.type(new Busboy({ headers: { 'content-type': 'multipart/form-data; boundary=x' } }).on, 'function')

  const Ref = lazyModule(() => require('json-schema-resolver')) as (o: object) => { resolve(s: object): object }
  t.same(Ref({ clone: true }).resolve({ type: 'object', properties: { a: { type: 'string' } } }), {
    type: 'object',
    properties: { a: { type: 'string' } },
  })

  const { PassThrough } = await import('node:stream')
  const Duplexify = lazyModule(() => require('duplexify')) as new (w: object, r: object) => { write: unknown }
  t.type(new Duplexify(new PassThrough(), new PassThrough()).write, 'function')

  // An ES module's named import (records' Luxon): one stand-in per export.
  const luxon = require('luxon') as typeof import('luxon')
  const DateTime = lazyModule(() => luxon.DateTime) as typeof luxon.DateTime
  const IANAZone = lazyModule(() => luxon.IANAZone) as typeof luxon.IANAZone
  t.equal(DateTime.fromMillis(Date.UTC(2026, 6, 1), { zone: 'Europe/Paris' }).offset, 120)
  t.ok(IANAZone.isValidZone('America/New_York'))
  t.notOk(IANAZone.isValidZone('Mars/Base'))
  t.ok(DateTime.now() instanceof DateTime, 'instanceof through the stand-in')

  const otel = lazyModule(() => require('@opentelemetry/api')) as typeof import('@opentelemetry/api')
  t.equal(otel.trace.getSpan(otel.context.active()), undefined)
})
