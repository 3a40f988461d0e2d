/**
 * Small real JPEGs with real EXIF, written byte by byte (no image library):
 * an 8×8 grey baseline JPEG (ITU T.81: SOF0, one DC and one AC Huffman table
 * of a single one-bit code, one block coding DC difference 0 then EOB) with an
 * APP1 Exif segment (TIFF little-endian: IFD0 Make/Model, the Exif IFD's
 * DateTimeOriginal/OffsetTimeOriginal, the GPS IFD per Exif 2.3 §4.6.6) and a
 * COM segment "scene: <words>" the provider stub reads as the image's content.
 */
export interface JpegSpec {
  make?: string
  model?: string
  /** EXIF form 'YYYY:MM:DD HH:MM:SS'. */
  takenAt?: string
  /** '+02:00'. */
  offset?: string
  gps?: { lat: number; lon: number }
  scene: string
}

type Entry = { tag: number; type: 1 | 2 | 3 | 4 | 5; values: number[] | string }
const TYPE_SIZE = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8 } as const

function count(e: Entry): number {
  return typeof e.values === 'string' ? e.values.length + 1 : e.type === 5 ? e.values.length / 2 : e.values.length
}

const ifdSize = (entries: Entry[]) =>
  2 + 12 * entries.length + 4 + entries.reduce((n, e) => n + pad(count(e) * TYPE_SIZE[e.type] > 4 ? count(e) * TYPE_SIZE[e.type] : 0), 0)
const pad = (n: number) => n + (n % 2)

/** Writes one IFD at `start` (offsets from the TIFF header); values over 4 bytes follow it. */
function writeIfd(entries: Entry[], start: number): Buffer {
  const out = Buffer.alloc(ifdSize(entries))
  const sorted = [...entries].sort((a, b) => a.tag - b.tag)
  out.writeUInt16LE(sorted.length, 0)
  let data = 2 + 12 * sorted.length + 4
  sorted.forEach((e, i) => {
    const at = 2 + 12 * i
    const n = count(e)
    const size = n * TYPE_SIZE[e.type]
    out.writeUInt16LE(e.tag, at)
    out.writeUInt16LE(e.type, at + 2)
    out.writeUInt32LE(n, at + 4)
    let target = at + 8
    if (size > 4) {
      out.writeUInt32LE(start + data, at + 8)
      target = data
      data += pad(size)
    }
    if (typeof e.values === 'string') out.write(`${e.values}\u0000`, target, 'latin1')
    else
      e.values.forEach((v, j) => {
        if (e.type === 1) out.writeUInt8(v, target + j)
        else if (e.type === 3) out.writeUInt16LE(v, target + 2 * j)
        else out.writeUInt32LE(v, target + 4 * j)
      })
  })
  out.writeUInt32LE(0, 2 + 12 * sorted.length) // no next IFD
  return out
}

/** Degrees as three rationals (deg/1, min/1, sec×100/100). */
function dms(value: number): number[] {
  const a = Math.abs(value)
  const d = Math.floor(a)
  const m = Math.floor((a - d) * 60)
  const s = Math.round(((a - d) * 60 - m) * 60 * 100)
  return [d, 1, m, 1, s, 100]
}

export function exifApp1(spec: JpegSpec): Buffer {
  const exif: Entry[] = []
  if (spec.takenAt) exif.push({ tag: 0x9003, type: 2, values: spec.takenAt })
  if (spec.offset) exif.push({ tag: 0x9011, type: 2, values: spec.offset })
  const gps: Entry[] = spec.gps
    ? [
        { tag: 0x0000, type: 1, values: [2, 3, 0, 0] },
        { tag: 0x0001, type: 2, values: spec.gps.lat >= 0 ? 'N' : 'S' },
        { tag: 0x0002, type: 5, values: dms(spec.gps.lat) },
        { tag: 0x0003, type: 2, values: spec.gps.lon >= 0 ? 'E' : 'W' },
        { tag: 0x0004, type: 5, values: dms(spec.gps.lon) },
      ]
    : []
  const ifd0: Entry[] = []
  if (spec.make) ifd0.push({ tag: 0x010f, type: 2, values: spec.make })
  if (spec.model) ifd0.push({ tag: 0x0110, type: 2, values: spec.model })
  ifd0.push({ tag: 0x8769, type: 4, values: [0] })
  if (gps.length) ifd0.push({ tag: 0x8825, type: 4, values: [0] })
  const ifd0At = 8
  const exifAt = ifd0At + ifdSize(ifd0)
  const gpsAt = exifAt + ifdSize(exif)
  ifd0.find((e) => e.tag === 0x8769)!.values = [exifAt]
  if (gps.length) ifd0.find((e) => e.tag === 0x8825)!.values = [gpsAt]
  const header = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00])
  const tiff = Buffer.concat([header, writeIfd(ifd0, ifd0At), writeIfd(exif, exifAt), ...(gps.length ? [writeIfd(gps, gpsAt)] : [])])
  return segment(0xe1, Buffer.concat([Buffer.from('Exif\u0000\u0000', 'latin1'), tiff]))
}

function segment(marker: number, body: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0])
  head.writeUInt16BE(body.length + 2, 2)
  return Buffer.concat([head, body])
}

export function makeJpeg(spec: JpegSpec): Buffer {
  const dqt = Buffer.concat([Buffer.from([0x00]), Buffer.alloc(64, 1)])
  const sof0 = Buffer.from([8, 0, 8, 0, 8, 1, 1, 0x11, 0])
  const oneCode = (classId: number) => Buffer.concat([Buffer.from([classId, 1]), Buffer.alloc(15), Buffer.from([0])])
  const sos = Buffer.from([1, 1, 0x00, 0, 63, 0])
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    exifApp1(spec),
    segment(0xfe, Buffer.from(`scene: ${spec.scene}`, 'latin1')),
    segment(0xdb, dqt),
    segment(0xc0, sof0),
    segment(0xc4, oneCode(0x00)),
    segment(0xc4, oneCode(0x10)),
    segment(0xda, sos),
    // DC: code '0' (difference category 0); AC: code '0' (EOB); padded with 1 bits.
    Buffer.from([0x3f]),
    Buffer.from([0xff, 0xd9]),
  ])
}
