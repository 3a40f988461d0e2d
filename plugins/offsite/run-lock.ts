import { readFileSync, rmSync, writeFileSync } from 'node:fs'

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * One staged copy at a time per data folder, across processes: the daemon's scheduled run and a
 * `hearth offsite run` beside it would otherwise stage into the same folder. The lock file holds
 * the owner's pid; a lock whose process is gone (killed mid-run) is taken over.
 */
export function takeRunLock(file: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 })
      return () => rmSync(file, { force: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const pid = Number(readFileSync(file, 'utf8').trim())
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) throw new Error(`another off-site run is under way (pid ${pid})`)
      rmSync(file, { force: true })
    }
  }
  throw new Error('another off-site run took the lock at the same moment')
}
