/**
 * An image received from someone, made safe to keep and serve: its format told by its first bytes
 * (never by what the sender declared), decoded by sharp (libvips) within a pixel limit so a small
 * file claiming a huge canvas (a decompression bomb) is refused before it is decoded, turned
 * upright by its EXIF orientation, shrunk to fit a square, and written again as a JPEG: the new
 * file carries no metadata at all (EXIF, GPS, XMP, ICC comments), because sharp writes none unless asked.
 */
// sharp is imported on the first image, not at start: its module and libvips (several MB resident) are not
// needed by a process that never reads an image.
const sharpModule = async () => (await import('sharp')).default

export type ImageType = 'image/jpeg' | 'image/png' | 'image/webp'

/** The format of these bytes by their signature, or null when they are none of JPEG, PNG and WebP. */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg'
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return 'image/png'
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1')
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp'
  return null
}

/** Why an image was refused: not one of the formats, broken, or more pixels than the limit. */
export class ImageRejected extends Error {
  constructor(
    readonly reason: 'unsupported' | 'corrupt' | 'too-many-pixels',
    message: string,
  ) {
    super(message)
    this.name = 'ImageRejected'
  }
}

export interface BoundOptions {
  /** The longest side of the result; a smaller image is not enlarged. */
  side: number
  /** Width × height the input may declare at most (checked from its header, before decoding). */
  maxPixels: number
  /** JPEG quality, 1-100 (default 82). */
  quality?: number
}

export interface BoundedImage {
  bytes: Buffer
  type: 'image/jpeg'
  width: number
  height: number
}

// At most two images decode at once: each may hold tens of MB in libvips, and libuv's four
// threads are shared with file reads.
const MAX_AT_ONCE = 2
let running = 0
const waiting: Array<() => void> = []
async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve))
  running++
  try {
    return await fn()
  } finally {
    running--
    waiting.shift()?.()
  }
}

/** The image re-encoded as an upright JPEG of at most `side` × `side`, without metadata; throws ImageRejected. */
export async function boundedJpeg(input: Buffer, opts: BoundOptions): Promise<BoundedImage> {
  if (!sniffImageType(input)) throw new ImageRejected('unsupported', 'not a JPEG, PNG or WebP image')
  const sharp = await sharpModule()
  return slot(async () => {
    const source = () => sharp(input, { failOn: 'error', limitInputPixels: opts.maxPixels, animated: false })
    try {
      const meta = await source().metadata()
      if (!meta.width || !meta.height) throw new ImageRejected('corrupt', 'the image has no size')
      if (meta.width * meta.height > opts.maxPixels)
        throw new ImageRejected('too-many-pixels', `the image has more than ${opts.maxPixels} pixels`)
      const { data, info } = await source()
        .rotate()
        .resize(opts.side, opts.side, { fit: 'inside', withoutEnlargement: true })
        // Transparent areas become white rather than JPEG's default black.
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: opts.quality ?? 82 })
        .toBuffer({ resolveWithObject: true })
      return { bytes: data, type: 'image/jpeg', width: info.width, height: info.height }
    } catch (err) {
      if (err instanceof ImageRejected) throw err
      const message = (err as Error).message
      if (/pixel limit/i.test(message)) throw new ImageRejected('too-many-pixels', `the image has more than ${opts.maxPixels} pixels`)
      throw new ImageRejected('corrupt', `the image cannot be read (${message.split('\n')[0]?.slice(0, 200)})`)
    }
  })
}
