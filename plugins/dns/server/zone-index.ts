import type { ParsedZone } from './parsed-zone.js'
import { QTYPE, type WireRecord } from './records.js'
import { nameEquals } from './wire.js'

/** One owner name as served in one index generation. */
export interface NameNode {
  name: string
  wire: Buffer
  zone: ParsedZone
  rrsets: Map<number, WireRecord[]>
  /** Delegation point (NS below the apex) at or above this name, if any. */
  cut: NameNode | null
  /** Pre-encoded responses by qtype (ID 0, lower-case question, no OPT). */
  cache: Map<number, Buffer>
  /** The `*.<this name>` node, when there is one (RFC 4592 source of synthesis). */
  wildcard: NameNode | null
  /** On a wildcard node: synthesised answer records by qtype, owner = pointer to the question; null = NODATA. */
  tails: Map<number, WildcardTail | null>
  /** Next node with the same 32-bit hash. */
  next: NameNode | null
}

export interface WildcardTail {
  tail: Buffer
  /** answer, authority, additional counts of `tail`. */
  counts: number[]
}

/** The most specific zone holding `name`, so a child zone occludes its parent's names. */
function owningZone(name: string, zones: Map<string, ParsedZone>): string | null {
  let suffix = name
  for (;;) {
    if (zones.has(suffix)) return suffix
    const dot = suffix.indexOf('.')
    if (dot < 0) return null
    suffix = suffix.slice(dot + 1)
  }
}

/**
 * Immutable index of every authoritative zone. Each change assembles a new
 * one from the parsed zones (only the changed zone is parsed again) and the
 * server swaps the reference: a query sees old or new data, never half, and
 * cached responses die with their generation (a cached MX answer may hold
 * glue from another zone, so no cache survives any change).
 */
export class ZoneIndex {
  readonly zones: Map<string, ParsedZone>
  private readonly table = new Map<number, NameNode>()
  private readonly byName = new Map<string, NameNode>()

  constructor(zones: Iterable<ParsedZone>) {
    this.zones = new Map([...zones].map((z) => [z.name, z]))
    // Occlusion checks per name only matter when some zone lies inside another.
    const nested = [...this.zones.keys()].some((z) => z.includes('.') && owningZone(z.slice(z.indexOf('.') + 1), this.zones) !== null)
    for (const zone of this.zones.values()) {
      for (const parsed of zone.names.values()) {
        if (nested && owningZone(parsed.name, this.zones) !== zone.name) continue
        const node: NameNode = {
          name: parsed.name,
          wire: parsed.wire,
          zone,
          rrsets: parsed.rrsets,
          cut: null,
          cache: new Map(),
          wildcard: null,
          tails: new Map(),
          next: null,
        }
        node.next = this.table.get(parsed.hash) ?? null
        this.table.set(parsed.hash, node)
        this.byName.set(parsed.name, node)
      }
    }
    for (const node of [...this.byName.values()].sort((a, b) => a.name.length - b.name.length)) this.link(node)
  }

  /** Node for a name given as wire bytes of `msg` [start, end) with its precomputed hash. */
  find(msg: Buffer, start: number, end: number, hash: number): NameNode | null {
    for (let node = this.table.get(hash) ?? null; node; node = node.next) {
      if (nameEquals(msg, start, end, node.wire)) return node
    }
    return null
  }

  node(name: string): NameNode | null {
    return this.byName.get(name) ?? null
  }

  /** Inherits the delegation cut from the parent (called shortest names first). */
  private link(node: NameNode): void {
    if (node.name === node.zone.name) return
    const parent = this.byName.get(node.name.slice(node.name.indexOf('.') + 1))
    if (parent && node.name.startsWith('*.')) parent.wildcard = node
    node.cut = parent?.cut ?? (node.rrsets.has(QTYPE.NS) ? node : null)
  }
}
