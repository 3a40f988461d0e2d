/**
 * Calendar dates as address books hold them: a full date, or a month and day whose year nobody
 * knows. Canonical text: `YYYY-MM-DD`, or `--MM-DD` without a year (RFC 6350 4.3.1's truncated
 * form, with ISO 8601's dashes). Reads what vCard writers put in BDAY and ANNIVERSARY: basic and
 * extended forms (`19850412`, `--0412`, `--04-12`), a date-time (its date part), and vCard 3.0's
 * Apple convention for an unknown year, the year 1604 with `X-APPLE-OMIT-YEAR=1604`.
 */

export interface PartialDate {
  year: number | null
  month: number
  day: number
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0

/** The days of a month; February has 29 without a year (someone born on Feb 29 has that birthday). */
export function daysIn(month: number, year: number | null): number {
  if (month === 2) return year === null || isLeap(year) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

function valid(d: PartialDate): PartialDate | null {
  if (d.year !== null && (d.year < 1 || d.year > 9999)) return null
  if (d.month < 1 || d.month > 12 || d.day < 1 || d.day > daysIn(d.month, d.year)) return null
  return d
}

const CANONICAL = /^(?:(\d{4})|-)-(\d{2})-(\d{2})$/

/** A date in the canonical text (`YYYY-MM-DD` or `--MM-DD`), or null when it is not one or not a real date. */
export function parseCanonicalDate(text: string): PartialDate | null {
  const m = CANONICAL.exec(text)
  if (!m) return null
  return valid({ year: m[1] === undefined ? null : Number(m[1]), month: Number(m[2]), day: Number(m[3]) })
}

const VCARD_DATE = /^(?:(\d{4})-?|--)(\d{2})-?(\d{2})(?:[Tt].*)?$/

/**
 * A BDAY/ANNIVERSARY value as a writer sent it, or null when it holds no date (free text such as
 * "circa 1800", allowed by vCard 4.0 with VALUE=text). `omitYear`: the value of X-APPLE-OMIT-YEAR.
 */
export function parseVCardDate(value: string, omitYear?: string): PartialDate | null {
  const m = VCARD_DATE.exec(value.trim())
  if (!m) return null
  let year = m[1] === undefined ? null : Number(m[1])
  if (year !== null && omitYear !== undefined && Number(omitYear) === year) year = null
  return valid({ year, month: Number(m[2]), day: Number(m[3]) })
}

export function formatCanonicalDate(d: PartialDate): string {
  return `${d.year === null ? '-' : pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`
}

/**
 * The date as a vCard value: 4.0 writes `--MMDD` without a year (RFC 6350 4.3.1); 3.0 has no
 * such form, so it writes the year 1604 and names it in X-APPLE-OMIT-YEAR, as Apple's clients do.
 */
export function formatVCardDate(d: PartialDate, version: '3.0' | '4.0'): { value: string; params: Array<[string, string]> } {
  if (d.year !== null)
    return { value: version === '4.0' ? `${pad(d.year, 4)}${pad(d.month)}${pad(d.day)}` : formatCanonicalDate(d), params: [] }
  if (version === '4.0') return { value: `--${pad(d.month)}${pad(d.day)}`, params: [] }
  return { value: `1604-${pad(d.month)}-${pad(d.day)}`, params: [['X-APPLE-OMIT-YEAR', '1604']] }
}
