/**
 * Image work through sharp (libvips, prebuilt in its @img npm packages):
 * thumbnails, and a downscaled copy for the vision model when the original
 * is large. EXIF orientation is applied (rotate()) before resizing.
 */
// sharp is imported on the first image, not at start: its module and libvips (several MB resident) are not
// needed by a daemon that never makes a thumbnail.
const sharpModule = async () => (await import('sharp')).default

export const THUMBNAIL_SIDE = 320
/** Vision models work on about this size; larger photos are sent downscaled. */
export const VISION_SIDE = 1024

export async function thumbnail(input: Buffer | string): Promise<Buffer> {
  const sharp = await sharpModule()
  return sharp(input, { failOn: 'error' })
    .rotate()
    .resize(THUMBNAIL_SIDE, THUMBNAIL_SIDE, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 80 })
    .toBuffer()
}

/** What the vision model gets: the file itself when small enough and of a type models take, else a JPEG of at most VISION_SIDE. */
export async function forVision(bytes: Buffer, mime: string | undefined): Promise<{ bytes: Buffer; mime: string } | null> {
  try {
    const sharp = await sharpModule()
    const meta = await sharp(bytes, { failOn: 'error' }).metadata()
    if (mime && (meta.width ?? Infinity) <= VISION_SIDE && (meta.height ?? Infinity) <= VISION_SIDE) return { bytes, mime }
    const scaled = await sharp(bytes, { failOn: 'error' })
      .rotate()
      .resize(VISION_SIDE, VISION_SIDE, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 85 })
      .toBuffer()
    return { bytes: scaled, mime: 'image/jpeg' }
  } catch {
    // libvips cannot read it (HEIC is not in the prebuilt libvips): send it as is when models take the type
    return mime ? { bytes, mime } : null
  }
}
