/**
 * /proc/mdstat as the md driver prints it (drivers/md/md.c, md_seq_show):
 *
 *   md1 : active raid5 sdd1[3](S) sdc1[2](F) sdb1[1] sda1[0]
 *         1953260544 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/2] [UU_]
 *         [==>..................]  recovery = 12.6% (123456/976630272) finish=90.2min speed=150000K/sec
 *
 * An array starts at column 0 with "<name> : <state> ..."; its detail lines
 * are indented. raid0 and linear arrays have no [n/m] [U_] part.
 */
export interface MdstatMember {
  device: string
  number: number
  faulty: boolean
  spare: boolean
}

export interface MdstatArray {
  name: string
  active: boolean
  readOnly: boolean
  level: string | null
  members: MdstatMember[]
  /** 1 KiB blocks. */
  blocks: number
  raidDisks: number | null
  workingDisks: number | null
  /** 'UU_U': one letter per role, '_' for a missing one. */
  map: string | null
  operation: 'recovery' | 'resync' | 'reshape' | 'check' | 'repair' | null
  progress: number | null
  /** resync=PENDING or resync=DELAYED. */
  pending: boolean
}

const HEAD = /^(md[\w/-]*)\s*:\s*(active|inactive)\s*(.*)$/
const MEMBER = /^([\w.-]+)\[(\d+)\]((?:\([A-Z]\))*)$/
const STATUS = /\[(\d+)\/(\d+)\]\s*\[([U_]+)\]/
const PROGRESS = /(recovery|resync|reshape|check|repair)\s*=\s*([\d.]+)%/

export function parseMdstat(text: string): MdstatArray[] {
  const arrays: MdstatArray[] = []
  let current: MdstatArray | null = null
  for (const raw of text.split('\n')) {
    const head = HEAD.exec(raw)
    if (head) {
      const words = (head[3] as string).split(/\s+/).filter(Boolean)
      const flags = words.filter((w) => /^\(.*\)$/.test(w))
      const rest = words.filter((w) => !/^\(.*\)$/.test(w))
      const level = rest[0] && !MEMBER.test(rest[0]) ? (rest.shift() as string) : null
      current = {
        name: head[1] as string,
        active: head[2] === 'active',
        readOnly: flags.some((f) => f.includes('read-only')),
        level,
        members: rest.flatMap((w) => {
          const m = MEMBER.exec(w)
          if (!m) return []
          const marks = m[3] as string
          return [{ device: m[1] as string, number: Number(m[2]), faulty: marks.includes('(F)'), spare: marks.includes('(S)') }]
        }),
        blocks: 0,
        raidDisks: null,
        workingDisks: null,
        map: null,
        operation: null,
        progress: null,
        pending: false,
      }
      arrays.push(current)
      continue
    }
    if (!current || !/^\s/.test(raw)) {
      if (raw.trim() && !/^\s/.test(raw)) current = null
      continue
    }
    const blocks = /^\s*(\d+)\s+blocks/.exec(raw)
    if (blocks) current.blocks = Number(blocks[1])
    const status = STATUS.exec(raw)
    if (status) {
      current.raidDisks = Number(status[1])
      current.workingDisks = Number(status[2])
      current.map = status[3] as string
    }
    const progress = PROGRESS.exec(raw)
    if (progress) {
      current.operation = progress[1] as MdstatArray['operation']
      current.progress = Number(progress[2])
    }
    if (/resync=(PENDING|DELAYED)/.test(raw)) current.pending = true
  }
  return arrays
}
