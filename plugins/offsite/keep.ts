import type { OffsiteKeep } from '../../drivers/offsite/driver.js'

const PERIODS = new Set(['last', 'hourly', 'daily', 'weekly', 'monthly', 'yearly'])

/** `daily=7,weekly=4,monthly=12` → the retention rules; a message naming what is wrong otherwise. */
export function parseKeep(text: string): OffsiteKeep | string {
  const keep: OffsiteKeep = {}
  for (const part of text.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*(\d{1,5})\s*$/.exec(part)
    if (!m || !PERIODS.has(m[1] as string)) return `"${part.trim()}" is not period=count (periods: ${[...PERIODS].join(', ')})`
    const n = Number(m[2])
    if (n < 1) return `${m[1]} must keep at least 1`
    keep[m[1] as keyof OffsiteKeep] = n
  }
  return keep
}
