import type { FastifyBaseLogger } from 'fastify'
import type { CommandRunner } from './command.js'

/**
 * The generic driver contract. Each kind (storage, firewall, proxy, vpn,
 * dns-provider...) defines its own typed interface beside its drivers; the
 * core only knows modules, probes, priorities and capability flags.
 */
export interface DriverManifest {
  /** Unique within its kind, e.g. 'linux-basic', 'mdadm'. */
  name: string
  /** e.g. 'storage', 'firewall'. */
  kind: string
  /** Higher wins when several drivers of a kind are supported. */
  priority: number
  /** Capability flags this driver can offer, e.g. ['canListDisks', 'canCreatePool']. */
  capabilities: readonly string[]
  description?: string
}

export interface DriverContext {
  /** Runs OS tools; injectable so tests replay captured tool output. */
  run: CommandRunner
  log: FastifyBaseLogger
  /** The daemon's data folder. */
  dataDir: string
  /** Milliseconds since the epoch; injectable so tests control time. */
  now: () => number
  /** Driver-specific settings (tool paths, base URLs...) from the owning plugin's config. */
  settings: Record<string, unknown>
}

export type ProbeResult =
  | { supported: true /** subset of manifest.capabilities actually present; default all */; capabilities?: readonly string[] }
  | { supported: false; reason: string }

export interface DriverInstance {
  /** Releases what create() acquired; called only after driver.changed listeners finished. */
  dispose?(): Promise<void> | void
}

export interface DriverModule<T extends DriverInstance = DriverInstance> {
  manifest: DriverManifest
  probe(ctx: DriverContext): Promise<ProbeResult>
  create(ctx: DriverContext): Promise<T>
}

export function defineDriver<T extends DriverInstance>(module: DriverModule<T>): DriverModule<T> {
  return module
}

/** What the registry knows of the active driver of one kind. */
export interface ActiveDriver<T extends DriverInstance = DriverInstance> {
  name: string
  kind: string
  capabilities: ReadonlySet<string>
  instance: T
}

export interface DriverChangedEvent {
  kind: string
  previous: string | null
  current: string | null
}
