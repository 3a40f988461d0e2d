import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { basename } from 'node:path'

export interface Holder {
  pid: number
  command: string | null
  /** The fd link that matched (a path, or `socket:[inode]`). */
  link: string
}

/**
 * A process's program name: the base name of its argv[0], else its `comm` (a process may rename the
 * latter: Node 24 calls its main thread "MainThread"). Null once the process is gone.
 */
function commandOf(dir: string): string | null {
  try {
    const argv0 = readFileSync(`${dir}/cmdline`, 'utf8').split('\0')[0]
    if (argv0) return basename(argv0)
    return readFileSync(`${dir}/comm`, 'utf8').trim()
  } catch {
    return null
  }
}

/**
 * Processes with an open file descriptor whose link matches, from /proc (Linux; root sees
 * every process, another user its own). Used to name who holds a port, and to refuse a
 * restore while any process has the database open.
 */
export function fdHolders(matches: (link: string) => boolean, procRoot = '/proc'): Holder[] {
  const found: Holder[] = []
  let pids: string[]
  try {
    pids = readdirSync(procRoot).filter((n) => /^\d+$/.test(n))
  } catch {
    return found
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`${procRoot}/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      let link: string
      try {
        link = readlinkSync(`${procRoot}/${pid}/fd/${fd}`)
      } catch {
        continue
      }
      if (!matches(link)) continue
      found.push({ pid: Number(pid), command: commandOf(`${procRoot}/${pid}`), link })
    }
  }
  return found
}
