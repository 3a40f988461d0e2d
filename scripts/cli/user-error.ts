/**
 * One line for an error the admin can fix (a missing folder, a permission, a full disk, a busy
 * database), with the fix: `hearth backup /missing/dir/x.tgz` must not answer with a stack trace.
 * Undefined for anything else (a bug: its stack is worth reporting).
 */
export function userErrorLine(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined
  const e = err as NodeJS.ErrnoException
  if (typeof e.code === 'string' && e.syscall) {
    const what = e.path ? `${e.path}: ` : ''
    const fix = FIXES[e.code]
    return fix ? `${what}${fix}` : `${what}${e.code} (${e.syscall})`
  }
  if (e.name === 'SqliteError') {
    const code = String(e.code ?? '')
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
      return 'the database is busy: another process holds a write lock; try again, or stop what holds it'
    if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM'))
      return `the database cannot be opened for writing (${e.message}): run as the daemon's user, e.g. through the installed hearth command`
    if (code === 'SQLITE_FULL') return 'the disk holding the data folder is full: free some space'
    if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
      return `the database is damaged (${e.message}): restore a backup with \`hearth restore FILE\``
  }
  return undefined
}

const FIXES: Record<string, string> = {
  ENOENT: 'no such file or folder: check the path',
  ENOTDIR: 'a part of the path is not a folder: check the path',
  EISDIR: 'is a folder: give a file',
  EEXIST: 'already exists: give another name, or remove it first',
  EACCES: "permission denied: run as a user that may use it (the installed hearth command runs as the daemon's user)",
  EPERM: "not permitted: run as a user that may use it (the installed hearth command runs as the daemon's user)",
  ENOSPC: 'no space left on the device: free some space',
  EROFS: 'the file system is read-only: give a path on a writable one',
  EMFILE: 'too many open files: raise the limit (ulimit -n)',
  ECONNREFUSED: 'nothing listens there: is the daemon (or the service) running?',
}
