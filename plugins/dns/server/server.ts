import dgram from 'node:dgram'
import net from 'node:net'
import { respond } from './responder.js'
import type { DnsServer, DnsServerOptions, DnsServerStatus, DnsStartResult, ZoneData, ZoneRecord } from './types.js'
import { normaliseName, type ParsedZone, parseZone, replaceOwner, setSerial } from './parsed-zone.js'
import { ZoneIndex } from './zone-index.js'
import { ResponseRateLimiter } from './rate-limit.js'
import { truncate } from './responder.js'
import { addressPrefix } from '../../../lib/ip-prefix.js'
import { boundedLog } from './log-line.js'

/**
 * Sockets and zone bookkeeping. dns2's UDPServer/TCPServer are not used: they
 * run dns2's bit-level Packet.parse and build a Packet object per query, which
 * is what caps plain dns2 near 10k q/s. Here node's dgram/net feed raw bytes
 * to responder.ts; dns2's codec encodes each answer once (encode.ts).
 */

const TCP_IDLE_MS = 10_000
const TCP_MAX_CONNECTIONS = 256
/**
 * Connections one source may hold: an IPv4 address (a LAN host, or a whole NAT: it is still one party's
 * router) or an IPv6 /64 (one host can take any address of its /64). An eighth of the total, so a single
 * source that opens connections and sends nothing no longer holds every slot until the idle reap.
 */
const TCP_MAX_PER_SOURCE = 32
const SOURCE_BITS = { v4: 32, v6: 64 }
/** Answers a TCP client may leave unread before we stop reading its queries (RFC 7766 6.2.1.1). */
const TCP_MAX_UNREAD = 64 * 1024
const DEFAULT_RATE = 50
const BIND_ATTEMPTS = 5
const UDP_BUFFER_BYTES = 4 * 1024 * 1024

function describeBindError(err: NodeJS.ErrnoException): string {
  if (err.code === 'EADDRINUSE') return 'port already in use (EADDRINUSE)'
  if (err.code === 'EACCES') return 'no privilege to bind it (EACCES; ports below 1024 need root or CAP_NET_BIND_SERVICE)'
  if (err.code === 'EADDRNOTAVAIL') return 'address not available on this machine (EADDRNOTAVAIL)'
  return err.message
}

function bindUdp(host: string, port: number): Promise<dgram.Socket | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4' })
    socket.once('error', (err) => {
      socket.close()
      resolve(err)
    })
    socket.bind(port, host, () => {
      socket.removeAllListeners('error')
      resolve(socket)
    })
  })
}

function bindTcp(server: net.Server, host: string, port: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const onError = (err: NodeJS.ErrnoException) => resolve(err)
    server.once('error', onError)
    server.listen({ port, host, exclusive: true }, () => {
      server.removeListener('error', onError)
      resolve(null)
    })
  })
}

class AuthoritativeServer implements DnsServer {
  private index: ZoneIndex
  /** Parsed once per putZone; a change in one zone does not re-parse the others. */
  private readonly zones = new Map<string, ParsedZone>()
  private udp: dgram.Socket | null = null
  private tcp: net.Server | null = null
  private readonly connections = new Set<net.Socket>()
  /** Open TCP connections by source prefix. */
  private readonly perSource = new Map<string, number>()
  private tcpRefused = 0
  private port: number
  private error: string | null = null
  private queries = 0
  /** Answers by RCODE (the low four bits of the header's fourth byte). */
  private readonly rcodes = new Array<number>(16).fill(0)
  private dropped = 0
  private tcpPaused = 0
  private readonly limiter: ResponseRateLimiter

  private readonly opts: DnsServerOptions

  constructor(opts: DnsServerOptions) {
    this.opts = { ...opts, log: boundedLog(opts.log) }
    this.port = opts.port
    this.index = new ZoneIndex([])
    this.limiter = new ResponseRateLimiter(opts.rateLimit ?? { perSecond: DEFAULT_RATE })
  }

  get status(): DnsServerStatus {
    const udp = this.udp !== null
    const tcp = this.tcp !== null
    return {
      running: udp || tcp,
      udp,
      tcp,
      host: this.opts.host,
      port: this.port,
      error: this.error,
      zones: this.index.zones.size,
      queries: this.queries,
      byRcode: Object.fromEntries(this.rcodes.flatMap((n, code) => (n ? [[RCODE_NAMES[code] ?? String(code), n]] : []))),
      dropped: this.dropped,
      rateLimited: this.limiter.limited,
      tcpPaused: this.tcpPaused,
      tcpRefused: this.tcpRefused,
    }
  }

  async start(): Promise<DnsStartResult> {
    if (this.udp || this.tcp) return { udp: !!this.udp, tcp: !!this.tcp, port: this.port, ...(this.error ? { error: this.error } : {}) }
    const { host } = this.opts
    const errors: string[] = []
    for (let attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
      errors.length = 0
      const udp = await bindUdp(host, this.opts.port)
      const port = udp instanceof dgram.Socket ? udp.address().port : this.opts.port
      if (!(udp instanceof dgram.Socket)) errors.push(`UDP ${host}:${port}: ${describeBindError(udp)}`)
      const tcp = net.createServer({ noDelay: true }, (socket) => this.serveTcp(socket))
      tcp.maxConnections = TCP_MAX_CONNECTIONS
      const tcpError = await bindTcp(tcp, host, port)
      // With port 0 the UDP port is random: if TCP cannot share it, try another.
      if (tcpError && this.opts.port === 0 && udp instanceof dgram.Socket && attempt < BIND_ATTEMPTS - 1) {
        udp.close()
        continue
      }
      if (tcpError) errors.push(`TCP ${host}:${port}: ${describeBindError(tcpError)}`)
      if (udp instanceof dgram.Socket) this.serveUdp(udp)
      this.tcp = tcpError ? null : tcp
      this.port = port
      break
    }
    this.error = errors.length ? `DNS server cannot listen on ${errors.join('; ')}` : null
    return { udp: !!this.udp, tcp: !!this.tcp, port: this.port, ...(this.error ? { error: this.error } : {}) }
  }

  async stop(): Promise<void> {
    const udp = this.udp
    const tcp = this.tcp
    this.udp = null
    this.tcp = null
    for (const socket of this.connections) socket.destroy()
    this.connections.clear()
    await Promise.all([
      udp ? new Promise<void>((resolve) => udp.close(() => resolve())) : undefined,
      tcp ? new Promise<void>((resolve) => tcp.close(() => resolve())) : undefined,
    ])
  }

  setZones(zones: ZoneData[]): void {
    this.zones.clear()
    for (const zone of zones) this.parse(zone)
    this.rebuild()
  }

  putZone(zone: ZoneData): void {
    this.parse(zone)
    this.rebuild()
  }

  patchZone(name: string, serial: number, owners: Array<{ name: string; records: ZoneRecord[] }>): boolean {
    const zone = this.zones.get(normaliseName(name))
    if (!zone || this.index.zones.get(zone.name) !== zone) return false
    setSerial(zone, serial)
    for (const owner of owners) {
      const fqdn = normaliseName(owner.name)
      if (fqdn !== zone.name && !fqdn.endsWith(`.${zone.name}`)) continue
      this.index.patch(zone, replaceOwner(zone, fqdn, owner.records, this.opts.log))
    }
    this.index.touch()
    return true
  }

  removeZone(name: string): void {
    if (this.zones.delete(normaliseName(name))) this.rebuild()
  }

  private parse(zone: ZoneData): void {
    const parsed = parseZone(zone, this.opts.log)
    if (parsed) this.zones.set(parsed.name, parsed)
    // An unusable name replaces nothing; a previous good version of it stays removed.
    else this.zones.delete(normaliseName(zone.name))
  }

  /** New immutable index, swapped in one assignment: queries see old or new, never half. */
  private rebuild(): void {
    this.index = new ZoneIndex(this.zones.values())
  }

  /** Never throws into the event loop: a packet that breaks the responder is counted and dropped. */
  private answer(msg: Buffer, tcp: boolean): Buffer | null {
    try {
      const out = respond(this.index, msg, tcp, (err) =>
        this.opts.log.error(`dns: answer failed, SERVFAIL sent: ${(err as Error).message}`),
      )
      if (out) {
        this.queries++
        this.rcodes[(out[3] as number) & 0x0f]++
      } else this.dropped++
      return out
    } catch (err) {
      this.dropped++
      this.opts.log.debug(`dns: packet dropped: ${(err as Error).message}`)
      return null
    }
  }

  private serveUdp(socket: dgram.Socket): void {
    this.udp = socket
    try {
      // Bursts queue in the kernel instead of being lost (capped by net.core.rmem_max).
      socket.setRecvBufferSize(UDP_BUFFER_BYTES)
      socket.setSendBufferSize(UDP_BUFFER_BYTES)
    } catch {
      // Not fatal: the default buffers work, only bursts suffer.
    }
    socket.on('error', (err) => this.opts.log.warn(`dns: UDP socket error: ${err.message}`))
    socket.on('message', (msg, rinfo) => {
      // Source port 0 cannot be answered (and is a classic reflection marker).
      if (rinfo.port === 0) return void this.dropped++
      const out = this.answer(msg, false)
      if (!out) return
      const verdict = this.limiter.check(rinfo.address)
      if (verdict === 'send') socket.send(out, rinfo.port, rinfo.address)
      else if (verdict === 'truncate') socket.send(truncate(out), rinfo.port, rinfo.address)
    })
  }

  /** Counts the connection against its source's share, or closes it at once when the share is taken. */
  private admitSource(socket: net.Socket): boolean {
    const source = addressPrefix(socket.remoteAddress ?? '', SOURCE_BITS)
    const held = this.perSource.get(source) ?? 0
    if (held >= (this.opts.tcpMaxPerSource ?? TCP_MAX_PER_SOURCE)) {
      this.tcpRefused++
      socket.destroy()
      return false
    }
    this.perSource.set(source, held + 1)
    socket.once('close', () => {
      const left = (this.perSource.get(source) ?? 1) - 1
      if (left > 0) this.perSource.set(source, left)
      else this.perSource.delete(source)
    })
    return true
  }

  /**
   * RFC 7766 framing and pipelining with backpressure: once a client leaves TCP_MAX_UNREAD bytes of
   * answers unread, the rest of what it sent waits and the socket stops reading until the answers
   * drain. Memory per connection is bounded by one read chunk plus that much output, and a client
   * that neither reads nor sends is closed by the idle time-out.
   */
  private serveTcp(socket: net.Socket): void {
    if (!this.admitSource(socket)) return
    this.connections.add(socket)
    // The idle clock restarts only on progress (a whole query read, answers drained), never on a stray
    // byte: a client trickling a partial frame or garbage cannot hold one of the 256 connections forever.
    const idleMs = this.opts.tcpIdleMs ?? TCP_IDLE_MS
    let idle = setTimeout(() => socket.destroy(), idleMs)
    const progress = () => {
      clearTimeout(idle)
      idle = setTimeout(() => socket.destroy(), idleMs)
    }
    socket.on('close', () => clearTimeout(idle))
    socket.on('error', () => socket.destroy())
    socket.on('close', () => this.connections.delete(socket))
    let pending: Buffer | null = null
    const work = (): void => {
      const buf = pending
      if (!buf) return
      let p = 0
      while (buf.length - p >= 2 && socket.writableLength < TCP_MAX_UNREAD) {
        const len = buf.readUInt16BE(p)
        if (buf.length - p - 2 < len) break
        const out = this.answer(buf.subarray(p + 2, p + 2 + len), true)
        p += 2 + len
        progress()
        if (!out) continue
        const framed = Buffer.allocUnsafe(out.length + 2)
        framed.writeUInt16BE(out.length, 0)
        out.copy(framed, 2)
        socket.write(framed)
      }
      pending = p < buf.length ? Buffer.from(buf.subarray(p)) : null
      if (socket.writableLength >= TCP_MAX_UNREAD && !socket.isPaused()) {
        this.tcpPaused++
        socket.pause()
        socket.once('drain', () => {
          progress()
          socket.resume()
          work()
        })
      }
    }
    socket.on('data', (chunk: Buffer) => {
      pending = pending ? Buffer.concat([pending, chunk]) : chunk
      work()
    })
  }
}

const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED']

export function createDnsServer(opts: DnsServerOptions): DnsServer {
  return new AuthoritativeServer(opts)
}
