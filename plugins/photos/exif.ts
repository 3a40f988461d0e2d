/**
 * What a photo's EXIF says, through exifr: when it was taken (DateTimeOriginal,
 * made UTC with OffsetTimeOriginal when present, else read as UTC), the
 * camera and GPS coordinates; and the thumbnail a camera embedded.
 */
// exifr is imported on the first photo read, not at start (100 KB of code the daemon otherwise never runs).
const exifrModule = async () => (await import('exifr')).default

export interface PhotoExif {
  takenAt: string | null
  make: string | null
  model: string | null
  latitude: number | null
  longitude: number | null
}

const DATE = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/
const OFFSET = /^([+-])(\d{2}):(\d{2})$/

export function exifTime(value: unknown, offset: unknown): string | null {
  const m = typeof value === 'string' ? DATE.exec(value.trim()) : null
  if (!m) return null
  const [, y, mo, d, h, mi, s] = m.map(Number)
  let ms = Date.UTC(y, mo - 1, d, h, mi, s)
  const o = typeof offset === 'string' ? OFFSET.exec(offset.trim()) : null
  if (o) ms -= (o[1] === '-' ? -1 : 1) * (Number(o[2]) * 60 + Number(o[3])) * 60_000
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim().slice(0, 200) : null)
const coord = (v: unknown, limit: number) => (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= limit ? v : null)

/** `file` is the bytes, or a path exifr reads in chunks (large files). */
export async function readExif(file: Buffer | string): Promise<PhotoExif> {
  const exifr = await exifrModule()
  const tags = ((await exifr.parse(file, { reviveValues: false, mergeOutput: true }).catch(() => null)) ?? {}) as Record<string, unknown>
  const gps = (await exifr.gps(file).catch(() => null)) as { latitude?: unknown; longitude?: unknown } | null
  return {
    takenAt: exifTime(tags.DateTimeOriginal ?? tags.CreateDate ?? tags.DateTime, tags.OffsetTimeOriginal ?? tags.OffsetTime),
    make: text(tags.Make),
    model: text(tags.Model),
    latitude: coord(gps?.latitude, 90),
    longitude: coord(gps?.longitude, 180),
  }
}

export async function thumbnailOf(file: Buffer): Promise<Buffer | null> {
  const exifr = await exifrModule()
  const thumb = await exifr.thumbnail(file).catch(() => undefined)
  return thumb ? Buffer.from(thumb) : null
}
