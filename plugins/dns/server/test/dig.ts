import { execFile } from 'node:child_process'

/** One resource record line of dig's output. */
export interface DigRecord {
  name: string
  ttl: number
  type: string
  data: string
}

/** What the tests read from one real `dig` run. */
export interface DigResult {
  status: string
  flags: string[]
  /** EDNS line present in the reply (the server sent an OPT record). */
  edns: string | null
  answer: DigRecord[]
  authority: DigRecord[]
  additional: DigRecord[]
  raw: string
}

function parseRecord(line: string): DigRecord {
  const [name, ttl, , type, ...data] = line.split(/\s+/)
  return { name, ttl: Number(ttl), type, data: data.join(' ') }
}

export function parseDig(raw: string): DigResult {
  const result: DigResult = { status: '', flags: [], edns: null, answer: [], authority: [], additional: [], raw }
  let section: DigRecord[] | null = null
  for (const line of raw.split('\n')) {
    const status = /status: (\w+)/.exec(line)
    if (status) result.status = status[1]
    const flags = /^;; flags: ([^;]*);/.exec(line)
    if (flags) result.flags = flags[1].trim().split(/\s+/).filter(Boolean)
    if (line.startsWith('; EDNS:')) result.edns = line
    if (line.startsWith(';; ANSWER SECTION')) section = result.answer
    else if (line.startsWith(';; AUTHORITY SECTION')) section = result.authority
    else if (line.startsWith(';; ADDITIONAL SECTION')) section = result.additional
    else if (line.trim() === '') section = null
    else if (section && !line.startsWith(';')) section.push(parseRecord(line))
  }
  return result
}

/** Runs the real dig against server:port (default 127.0.0.1); `extra` e.g. ['+tcp'], ['+noedns']. */
export function dig(port: number, name: string, type: string, extra: string[] = [], server = '127.0.0.1'): Promise<DigResult> {
  const args = [`@${server}`, '-p', String(port), name, type, '+norec', '+time=2', '+tries=1', ...extra]
  return new Promise((resolve, reject) => {
    execFile('dig', args, { timeout: 10_000 }, (err, stdout) => {
      if (err && !stdout) return reject(err)
      resolve(parseDig(stdout))
    })
  })
}
