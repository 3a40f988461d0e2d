/**
 * A CommonJS module loaded on its first use instead of when it is required (issue 11, start and idle memory).
 * scripts/bundle.mjs puts each package of its LAZY list in a file of its own beside the bundle and gives the
 * modules that `require` it this stand-in instead: the package's source is not read, compiled nor held by the
 * daemon until something calls it, constructs it or reads one of its properties, after which every operation
 * is the real module's. Only for modules their requirers use that way (`mod.fn(...)`, `new Mod()`, `mod(...)`),
 * never enumerate or compare by identity: the stand-in is not the module object itself.
 */
export function lazyModule(load: () => unknown, props: readonly string[] = []): unknown {
  type Module = ((...args: unknown[]) => unknown) & Record<PropertyKey, unknown>
  let loaded: { value: Module } | undefined
  const real = (): Module => (loaded ??= { value: load() as Module }).value
  // `props`: functions or classes the requirer reads off the module when it is required
  // (`const { fn } = require(...)`, `require(...).default`): each gets a stand-in of its own meanwhile.
  const early = new Map(props.map((key) => [key, lazyModule(() => real()[key])]))
  // A function target, so that the stand-in can be called and constructed whatever the module exports.
  // `mod.fn(...)` through it calls fn with the stand-in as `this`, whose reads reach the module.
  const proxy: object = new Proxy(function () {}, {
    apply: (_t, self, args) => Reflect.apply(real(), self, args),
    construct: (_t, args, newTarget) => Reflect.construct(real(), args, newTarget === proxy ? real() : newTarget),
    get: (_t, key) => (!loaded && typeof key === 'string' && early.has(key) ? early.get(key) : real()[key]),
    has: (_t, key) => key in real(),
    set: (_t, key, value) => Reflect.set(real(), key, value),
  })
  return proxy
}
