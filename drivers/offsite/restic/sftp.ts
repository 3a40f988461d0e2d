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
  args.push(target.host, '-s', 'sftp')
  return args.map(word).join(' ')
}
