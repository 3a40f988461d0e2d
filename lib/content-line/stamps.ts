/** UTC date-time stamps as vCard REV and iCalendar DTSTAMP/CREATED/LAST-MODIFIED write them. */

/** Date-time text as in REV / DTSTAMP / LAST-MODIFIED: 20261122T081500Z or ISO. */
export function parseStamp(value: string): string | undefined {
  const basic = /^(\d{4})-?(\d{2})-?(\d{2})T(\d{2}):?(\d{2}):?(\d{2})(?:\.\d+)?Z$/.exec(value.trim())
  if (!basic) return undefined
  const [, y, mo, d, h, mi, s] = basic
  const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s))
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/** ISO datetime → 20261122T081500Z. */
export function formatStamp(iso: string): string {
  return new Date(iso)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '')
}
