import { lstat, opendir } from 'node:fs/promises'
import { join } from 'node:path'

export interface Measured {
  size_bytes: number
  status: 'ok' | 'timeout'
}

const BATCH = 64

/**
 * Sums the sizes of the files under `paths` (apparent size, symlinks not
 * followed) with async fs calls only, so the event loop keeps serving while
 * a large tree is walked. Past `deadlineMs` of wall-clock time it answers at
 * once with status 'timeout' and the bytes counted so far, and the walk stops.
 */
export async function measure(paths: readonly string[], deadlineMs: number): Promise<Measured> {
  let total = 0
  let expired = false

  const visit = async (path: string): Promise<void> => {
    if (expired) return
    const stat = await lstat(path).catch(() => null)
    if (!stat) return // vanished or unreadable: not ours to report
    if (stat.isFile()) {
      total += stat.size
      return
    }
    if (!stat.isDirectory()) return
    const dir = await opendir(path).catch(() => null)
    if (!dir) return
    let batch: Promise<void>[] = []
    for await (const entry of dir) {
      if (expired) break
      if (entry.isSymbolicLink()) continue
      batch.push(visit(join(path, entry.name)))
      if (batch.length >= BATCH) {
        await Promise.all(batch)
        batch = []
      }
    }
    await Promise.all(batch)
  }

  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      expired = true
      resolve('timeout')
    }, deadlineMs)
  })
  const walked = (async () => {
    for (const path of paths) await visit(path)
    return 'ok' as const
  })()
  const outcome = await Promise.race([walked, deadline])
  clearTimeout(timer)
  return { size_bytes: total, status: outcome }
}
