import { readFileSync } from 'node:fs'
import { fdHolders } from '../proc.js'
import type { Finding } from './finding.js'

export interface PortHolder {
  pid: number | null
  command: string | null
}

interface Socket {
  proto: 'tcp' | 'udp'
  port: number
  inode: string
}

/** Listening TCP and bound UDP sockets from /proc/net (the kernel's own tables: no tool needed). */
function sockets(procRoot = '/proc'): Socket[] {
  const out: Socket[] = []
  for (const [file, proto, state] of [
    ['tcp', 'tcp', '0A'],
    ['tcp6', 'tcp', '0A'],
    ['udp', 'udp', '07'],
    ['udp6', 'udp', '07'],
  ] as const) {
    let text: string
    try {
      text = readFileSync(`${procRoot}/net/${file}`, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      if (cols.length < 10 || cols[3] !== state) continue
      const port = parseInt((cols[1] as string).split(':')[1] as string, 16)
      out.push({ proto, port, inode: cols[9] as string })
    }
  }
  return out
}

/** Which process holds each socket inode. */
function owners(inodes: Set<string>): Map<string, PortHolder> {
  const found = new Map<string, PortHolder>()
  if (!inodes.size) return found
  for (const h of fdHolders((link) => link.startsWith('socket:[') && inodes.has(link.slice(8, -1)))) {
    const inode = h.link.slice(8, -1)
    if (!found.has(inode)) found.set(inode, { pid: h.pid, command: h.command })
  }
  return found
}

export interface PortCheck {
  port: number
  protos: Array<'tcp' | 'udp'>
  /** What should serve it (for the message), and which commands or pids may hold it. */
  purpose: string
  expected: { pids: number[]; commands: string[]; daemonPid?: number }
  /** The variable that moves it. */
  variable: string
}

/** Whether this process may bind ports under 1024 (root, or CAP_NET_BIND_SERVICE in its effective set). */
function canBindLow(): boolean {
  if (process.getuid?.() === 0) return true
  try {
    const cap = /CapEff:\s*([0-9a-f]+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
    return cap ? (BigInt(`0x${cap}`) & (1n << 10n)) !== 0n : false
  } catch {
    return false
  }
}

export function portFindings(checks: PortCheck[]): Finding[] {
  const all = sockets()
  const wanted = all.filter((s) => checks.some((c) => c.port === s.port && c.protos.includes(s.proto)))
  const holders = owners(new Set(wanted.map((s) => s.inode)))
  const findings: Finding[] = []
  for (const c of checks) {
    const check = `port ${c.port}/${c.protos.join('+')}`
    const held = wanted.filter((s) => s.port === c.port && c.protos.includes(s.proto))
    if (!held.length) {
      if (c.port < 1024 && !canBindLow())
        findings.push({
          check,
          status: 'warn',
          message: `free, but this user cannot bind ports under 1024 (${c.purpose})`,
          fix: `run the daemon with AmbientCapabilities=CAP_NET_BIND_SERVICE (the systemd unit does), or move it with ${c.variable}`,
        })
      else findings.push({ check, status: 'ok', message: `free (${c.purpose})` })
      continue
    }
    const who = held.map((s) => holders.get(s.inode) ?? { pid: null, command: null })
    // The running daemon's sockets can be unreadable here (a process given capabilities is not
    // dumpable, so even its own user cannot read its /proc fds): its lock file names the port.
    const lockHolds = c.expected.daemonPid !== undefined
    const name = (h: { pid: number | null; command: string | null }) =>
      h.pid
        ? `${h.command ?? '?'} (pid ${h.pid})`
        : lockHolds
          ? `the Hearth daemon (pid ${c.expected.daemonPid}, its lock file)`
          : 'an unknown process'
    const names = [...new Set(who.map(name))].join(', ')
    const expected = who.every((h) =>
      h.pid === null ? lockHolds : c.expected.pids.includes(h.pid) || c.expected.commands.includes(h.command ?? ''),
    )
    findings.push(
      expected
        ? { check, status: 'ok', message: `held by ${names} (${c.purpose})` }
        : {
            check,
            status: 'fail',
            message: `held by ${names}; Hearth needs it for ${c.purpose}`,
            fix: `stop ${names} or move Hearth with ${c.variable}`,
          },
    )
  }
  return findings
}
