import type { OwnerChange, ParsedName, ParsedZone } from './parsed-zone.js'
import { QTYPE, type WireRecord } from './records.js'
import { hashName, nameEquals } from './wire.js'

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
  /** The index generation `cache` and `tails` were filled in; older ones are dropped on first use. */
  generation: number
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
 * Index of every authoritative zone. A zone loaded whole (start, a new zone) assembles a new index
 * and the server swaps the reference; a change of a few names patches this one in place, between
 * two queries (one thread: a query sees old or new data, never half). Either way the generation
 * moves on and every cached response is dropped on its next use: a cached MX answer may hold glue
 * from another name, or another zone, so no cache survives any change.
 */
export class ZoneIndex {
  readonly zones: Map<string, ParsedZone>
  private readonly table = new Map<number, NameNode>()
  private readonly byName = new Map<string, NameNode>()
  private readonly nested: boolean
  generation = 0

  constructor(zones: Iterable<ParsedZone>) {
    this.zones = new Map([...zones].map((z) => [z.name, z]))
    // Occlusion checks per name only matter when some zone lies inside another.
    this.nested = [...this.zones.keys()].some((z) => z.includes('.') && owningZone(z.slice(z.indexOf('.') + 1), this.zones) !== null)
    for (const zone of this.zones.values()) for (const parsed of zone.names.values()) this.insert(parsed, zone)
    for (const node of [...this.byName.values()].sort((a, b) => a.name.length - b.name.length)) this.link(node)
  }

  /** Follows one owner's replacement in `zone` (parsed-zone.ts replaceOwner): O(changed names), or O(zone) when a cut moved. */
  patch(zone: ParsedZone, change: OwnerChange): void {
    this.generation++
    for (const gone of change.removed) this.remove(gone.name)
    const added = change.added.map((parsed) => this.insert(parsed, zone)).filter((n): n is NameNode => n !== null)
    for (const node of added) this.link(node)
    if (change.cutChanged) this.relink(zone)
  }

  /** A new serial or SOA: only cached answers change. */
  touch(): void {
    this.generation++
  }

  private insert(parsed: ParsedName, zone: ParsedZone): NameNode | null {
    if (this.nested && owningZone(parsed.name, this.zones) !== zone.name) return null
    const node: NameNode = {
      name: parsed.name,
      wire: parsed.wire,
      zone,
      rrsets: parsed.rrsets,
      cut: null,
      cache: new Map(),
      wildcard: null,
      tails: new Map(),
      next: this.table.get(parsed.hash) ?? null,
      generation: this.generation,
    }
    this.table.set(parsed.hash, node)
    this.byName.set(parsed.name, node)
    return node
  }

  private remove(name: string): void {
    const node = this.byName.get(name)
    if (!node) return
    this.byName.delete(name)
    const hash = hashName(name)
    let prev: NameNode | null = null
    for (let at = this.table.get(hash) ?? null; at; prev = at, at = at.next) {
      if (at !== node) continue
      if (prev) prev.next = at.next
      else if (at.next) this.table.set(hash, at.next)
      else this.table.delete(hash)
      break
    }
    if (name.startsWith('*.')) {
      const parent = this.byName.get(name.slice(2))
      if (parent?.wildcard === node) parent.wildcard = null
    }
  }

  /** Recomputes every cut and wildcard link of one zone (a delegation appeared or went). */
  private relink(zone: ParsedZone): void {
    const nodes = [...zone.names.keys()].map((n) => this.byName.get(n)).filter((n): n is NameNode => n?.zone === zone)
    for (const node of nodes.sort((a, b) => a.name.length - b.name.length)) this.link(node)
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

  /** The node's caches, emptied first when they belong to an older generation. */
  fresh(node: NameNode): NameNode {
    if (node.generation !== this.generation) {
      node.cache.clear()
      node.tails.clear()
      node.generation = this.generation
    }
    return node
  }
}
