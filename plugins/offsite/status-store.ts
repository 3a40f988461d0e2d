import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** One kind of result (a run, a check, a drill): when it last happened and how it ended. */
export interface Outcome {
  last_at: string | null
  ok: boolean | null
  error: string | null
  snapshot_id?: string | null
  size_bytes?: number | null
  bytes_added?: number | null
}

export interface OffsiteStatus {
  offsite: Outcome
  check: Outcome
  drill: Outcome
  /** When `hearth offsite kit` showed the repository and password (null: never). */
  kit_shown_at: string | null
}

const NEVER: Outcome = { last_at: null, ok: null, error: null }

/**
 * The outcomes of off-site runs, checks and drills, in a small JSON file of the data folder: the
 * daemon and the CLI (which may run while the daemon is stopped) both record there. Written to a
 * temporary name and renamed, so a reader never sees half of it. It holds no secret.
 */
export function createStatusStore(file: string) {
  const read = (): OffsiteStatus => {
    try {
      const s = JSON.parse(readFileSync(file, 'utf8')) as Partial<OffsiteStatus>
      return {
        offsite: { ...NEVER, ...s.offsite },
        check: { ...NEVER, ...s.check },
        drill: { ...NEVER, ...s.drill },
        kit_shown_at: s.kit_shown_at ?? null,
      }
    } catch {
      return { offsite: { ...NEVER }, check: { ...NEVER }, drill: { ...NEVER }, kit_shown_at: null }
    }
  }
  const write = (s: OffsiteStatus) => {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 })
    renameSync(tmp, file)
  }
  return {
    read,
    record(kind: 'offsite' | 'check' | 'drill', outcome: Outcome) {
      const s = read()
      s[kind] = { ...s[kind], ...outcome }
      write(s)
    },
    kitShown(at: string) {
      const s = read()
      s.kit_shown_at = at
      write(s)
    },
  }
}
export type StatusStore = ReturnType<typeof createStatusStore>
