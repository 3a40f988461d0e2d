import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

export interface Holder {
  pid: number
  command: string | null
  /** The fd link that matched (a path, or `socket:[inode]`). */
  link: string
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
      let command: string | null = null
      try {
        command = readFileSync(`${procRoot}/${pid}/comm`, 'utf8').trim()
      } catch {
        // gone meanwhile
      }
      found.push({ pid: Number(pid), command, link })
    }
  }
  return found
}
