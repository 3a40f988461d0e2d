/**
 * For an SFTP repository, the ssh command restic runs (its `sftp.command` option): Hearth's own key
 * in the data folder, its own known_hosts (a host's key is trusted on first use, then held to),
 * never a password prompt. Null for other repositories. restic splits the option's text itself
 * into words (no shell), so a word with a space is quoted.
 */
export interface SftpTarget {
  user: string | null
  host: string
  port: number | null
}

/** `sftp:user@host:/path` or `sftp://user@host:port//path`. */
export function sftpTarget(repository: string): SftpTarget | null {
  const url = /^sftp:\/\/(?:([^@/]+)@)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?\//.exec(repository)
  if (url) return { user: url[1] ?? null, host: (url[2] as string).replace(/^\[|\]$/g, ''), port: url[3] ? Number(url[3]) : null }
  const short = /^sftp:(?:([^@/]+)@)?(\[[^\]]+\]|[^:/]+):/.exec(repository)
  if (short) return { user: short[1] ?? null, host: (short[2] as string).replace(/^\[|\]$/g, ''), port: null }
  return null
}

// The user and host become words of the ssh command line: restic's splitter treats a backslash or
// a quote as syntax, and ssh reads a word starting with '-' as an option (`-oProxyCommand=…` runs a
// command). So only plain names pass: a login name, a DNS name or IPv4 address, an IPv6 address.
const USER = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/
const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/

function hostProblem(host: string, bracketed: boolean): string | null {
  if (bracketed) return IPV6.test(host) && host.includes(':') ? null : `"[${host}]" is not an IPv6 address`
  const name = host.endsWith('.') ? host.slice(0, -1) : host
  if (name.length > 0 && name.length <= 253 && name.split('.').every((l) => LABEL.test(l))) return null
  return `"${host}" is not a host name or address (letters, digits, '-', '_' and '.', not starting with '-')`
}

/**
 * Why an `sftp:` repository string is refused, or null (also for any other kind of repository).
 * Anything restic would treat as SFTP but that this does not read as a plain user, host and port
 * is refused rather than passed on.
 */
export function sftpRepositoryProblem(repository: string): string | null {
  if (!repository.startsWith('sftp:')) return null
  const url = /^sftp:\/\/(?:([^@/]*)@)?(\[[^\]]*\]|[^:/]*)(?::(\d{1,5}))?\//.exec(repository)
  const short = url ? null : /^sftp:(?!\/\/)(?:([^@/]*)@)?(\[[^\]]*\]|[^:/@]*):/.exec(repository)
  const m = url ?? short
  if (!m) return 'not an SFTP address restic and Hearth both read: use sftp:user@host:/path or sftp://user@host:port//path'
  const user = m[1]
  if (user !== undefined && !USER.test(user)) return `the user "${user}" may hold only letters, digits, '.', '_' and '-' (not first)`
  const host = m[2] as string
  const bracketed = host.startsWith('[')
  const problem = hostProblem(bracketed ? host.slice(1, -1) : host, bracketed)
  if (problem) return problem
  if (url && m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535)) return `the port ${m[3]} is not between 1 and 65535`
  return null
}

const word = (w: string) => (/[\s"']/.test(w) ? `"${w.replace(/"/g, '\\"')}"` : w)

export function sftpCommand(target: SftpTarget, keyFile: string, knownHosts: string): string {
  const args = [
    'ssh',
    '-i',
    keyFile,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=accept-new',
    '-o',
    `UserKnownHostsFile=${knownHosts}`,
    '-o',
    'ServerAliveInterval=30',
  ]
  if (target.port) args.push('-p', String(target.port))
  if (target.user) args.push('-l', target.user)
  // `-s` before the host, then `--`: whatever the host is, ssh reads no option after this point.
  args.push('-s', '--', target.host, 'sftp')
  return args.map(word).join(' ')
}
