import type { FastifyBaseLogger } from 'fastify'
import { HttpError } from '../errors.js'
import type { EventBus } from '../events.js'
import type { CommandRunner } from './command.js'
import type { ActiveDriver, DriverChangedEvent, DriverContext, DriverInstance, DriverModule, ProbeResult } from './driver.js'

export interface DetectResult {
  previous: string | null
  current: string | null
  changed: boolean
}

export interface DriverReport {
  name: string
  priority: number
  active: boolean
  supported: boolean | null
  reason?: string
}

/**
 * The stable HAL facade: the app is decorated with one of these once, and a
 * driver swap only moves the pointer behind it.
 */
export interface Hal {
  /** Adds a driver module (built-in or from a plugin). Takes effect on the next detect(). */
  register(module: DriverModule<DriverInstance>): void
  /** Settings handed to drivers of a kind through ctx.settings (tool paths, base URLs). */
  configure(kind: string, settings: Record<string, unknown>): void
  /** Probes every driver of the kind and swaps in the best supported one. Serialised per kind. */
  detect(kind: string): Promise<DetectResult>
  /** Settles when `kind` has been detected: waits for detections under way, starts one if there never was any. */
  settled(kind: string): Promise<unknown>
  /** The active driver of a kind, or null. */
  active<T extends DriverInstance>(kind: string): ActiveDriver<T> | null
  /**
   * Runs `fn` with the active driver, holding a lease so a concurrent swap
   * disposes the old driver only after `fn` settles. A kind never detected is
   * detected first. 503 when the kind has no supported driver.
   */
  with<T extends DriverInstance, R>(kind: string, fn: (driver: T, active: ActiveDriver<T>) => Promise<R>): Promise<R>
  /** 'kind.flag', e.g. 'storage.canCreatePool'. */
  has(capability: string): boolean
  /** Every flag any driver of the kind declares, true where the active driver has it. */
  capabilities(kind: string): Record<string, boolean>
  drivers(kind: string): DriverReport[]
  kinds(): string[]
  /** Disposes every active driver (daemon shutdown). */
  close(): Promise<void>
}

export interface HalOptions {
  events: EventBus
  log: FastifyBaseLogger
  dataDir: string
  run: CommandRunner
  now: () => number
}

interface Slot {
  modules: DriverModule<DriverInstance>[]
  settings: Record<string, unknown>
  active: (ActiveDriver & { leases: number; drained?: () => void }) | null
  lastProbe: Map<string, ProbeResult>
  queue: Promise<unknown>
  /** Detections queued and not yet ended. */
  pending: number
}

export function createHal(opts: HalOptions): Hal {
  const slots = new Map<string, Slot>()

  const slot = (kind: string): Slot => {
    let s = slots.get(kind)
    if (!s) {
      s = { modules: [], settings: {}, active: null, lastProbe: new Map(), queue: Promise.resolve(), pending: 0 }
      slots.set(kind, s)
    }
    return s
  }

  const context = (s: Slot, kind: string): DriverContext => ({
    run: opts.run,
    log: opts.log.child({ driverKind: kind }),
    dataDir: opts.dataDir,
    now: opts.now,
    settings: s.settings,
  })

  const probe = async (mod: DriverModule, ctx: DriverContext): Promise<ProbeResult> => {
    try {
      return await mod.probe(ctx)
    } catch (err) {
      return { supported: false, reason: `probe failed: ${(err as Error).message}` }
    }
  }

  const retire = async (old: NonNullable<Slot['active']>) => {
    if (old.leases > 0) await new Promise<void>((resolve) => (old.drained = resolve))
    try {
      await old.instance.dispose?.()
    } catch (err) {
      opts.log.warn({ err, driver: old.name }, 'driver dispose failed')
    }
  }

  const swap = async (kind: string): Promise<DetectResult> => {
    const s = slot(kind)
    const ctx = context(s, kind)
    const ranked = [...s.modules].sort((a, b) => b.manifest.priority - a.manifest.priority)
    const results = await Promise.all(ranked.map((m) => probe(m, ctx)))
    for (const [i, m] of ranked.entries()) s.lastProbe.set(m.manifest.name, results[i] as ProbeResult)
    const previous = s.active?.name ?? null

    for (const [i, mod] of ranked.entries()) {
      const result = results[i] as ProbeResult
      if (!result.supported) continue
      if (mod.manifest.name === previous) return { previous, current: previous, changed: false }
      let instance: DriverInstance
      try {
        instance = await mod.create(ctx)
      } catch (err) {
        s.lastProbe.set(mod.manifest.name, { supported: false, reason: `create failed: ${(err as Error).message}` })
        continue
      }
      const old = s.active
      s.active = {
        name: mod.manifest.name,
        kind,
        capabilities: new Set(result.capabilities ?? mod.manifest.capabilities),
        instance,
        leases: 0,
      }
      await opts.events.emitAndWait<DriverChangedEvent>('driver.changed', {
        userId: null,
        data: { kind, previous, current: mod.manifest.name },
      })
      if (old) await retire(old)
      opts.log.info({ kind, previous, current: mod.manifest.name }, 'driver selected')
      return { previous, current: mod.manifest.name, changed: true }
    }
    // Nothing supported: keep a working driver rather than leave the kind empty.
    return { previous, current: previous, changed: false }
  }

  const hal: Hal = {
    register(mod) {
      const s = slot(mod.manifest.kind)
      if (s.modules.some((m) => m.manifest.name === mod.manifest.name)) {
        throw new Error(`driver ${mod.manifest.kind}/${mod.manifest.name} is already registered`)
      }
      s.modules.push(mod)
    },
    configure(kind, settings) {
      Object.assign(slot(kind).settings, settings)
    },
    detect(kind) {
      const s = slot(kind)
      s.pending++
      const next = s.queue.then(() => swap(kind)).finally(() => s.pending--)
      s.queue = next.catch(() => undefined)
      return next
    },
    settled(kind) {
      const s = slots.get(kind)
      if (!s) return Promise.resolve()
      // Never detected and nothing under way (a plugin defers its start-up probe): detect now.
      if (!s.active && s.lastProbe.size === 0 && s.pending === 0 && s.modules.length) return hal.detect(kind).catch(() => undefined)
      return s.queue
    },
    active<T extends DriverInstance>(kind: string) {
      return (slots.get(kind)?.active ?? null) as ActiveDriver<T> | null
    },
    async with<T extends DriverInstance, R>(kind: string, fn: (driver: T, active: ActiveDriver<T>) => Promise<R>) {
      const slot = slots.get(kind)
      // A detection under way (started in the background at start) is waited for; a kind nobody
      // detected yet is detected on first use: start-up need not probe tools no request needs.
      if (slot && !slot.active && slot.modules.length) await hal.settled(kind)
      const active = slot?.active
      if (!active) throw new HttpError('SERVICE_UNAVAILABLE', `No ${kind} driver is available`)
      active.leases++
      try {
        return await fn(active.instance as T, active as unknown as ActiveDriver<T>)
      } finally {
        active.leases--
        if (active.leases === 0) active.drained?.()
      }
    },
    has(capability) {
      const dot = capability.indexOf('.')
      const kind = dot < 0 ? capability : capability.slice(0, dot)
      const active = slots.get(kind)?.active
      if (!active) return false
      return dot < 0 || active.capabilities.has(capability.slice(dot + 1))
    },
    capabilities(kind) {
      const s = slots.get(kind)
      const flags: Record<string, boolean> = {}
      for (const m of s?.modules ?? []) for (const f of m.manifest.capabilities) flags[f] = false
      for (const f of s?.active?.capabilities ?? []) flags[f] = true
      return flags
    },
    drivers(kind) {
      const s = slots.get(kind)
      return (s?.modules ?? [])
        .map((m) => {
          const p = s?.lastProbe.get(m.manifest.name)
          return {
            name: m.manifest.name,
            priority: m.manifest.priority,
            active: s?.active?.name === m.manifest.name,
            supported: p ? p.supported : null,
            ...(p && !p.supported ? { reason: p.reason } : {}),
          }
        })
        .sort((a, b) => b.priority - a.priority)
    },
    kinds() {
      return [...slots.keys()]
    },
    async close() {
      for (const s of slots.values()) {
        const old = s.active
        s.active = null
        if (old) await retire(old)
      }
    },
  }
  return hal
}
