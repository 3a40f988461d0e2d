import t from 'tap'
import exifr from 'exifr'
import sharp from 'sharp'
import { boundedJpeg, ImageRejected, sniffImageType } from '../../lib/image-bound.js'
import { cameraJpeg, pngBomb, smallPng } from '../image-fixtures.js'

t.test('a camera JPEG comes out upright, bounded, and without EXIF or GPS', async (t) => {
  const input = await cameraJpeg()
  t.ok(await exifr.gps(input), 'the input carries GPS')
  const out = await boundedJpeg(input, { side: 512, maxPixels: 40_000_000 })
  // 800×600 turned by orientation 6 is 600×800: inside 512 it is 384×512.
  t.same([out.width, out.height], [384, 512])
  const meta = await sharp(out.bytes).metadata()
  t.equal(meta.format, 'jpeg')
  t.equal(meta.exif, undefined)
  t.equal(meta.orientation, undefined)
  t.equal(await exifr.gps(out.bytes).catch(() => undefined), undefined)
})

t.test('a small PNG is not enlarged; its type is told by its bytes', async (t) => {
  const png = await smallPng()
  t.equal(sniffImageType(png), 'image/png')
  t.equal(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 ')), 'image/webp')
  t.equal(sniffImageType(Buffer.from('hello')), null)
  const out = await boundedJpeg(png, { side: 512, maxPixels: 1000 * 1000 })
  t.same([out.width, out.height], [40, 30])
})

t.test('refusals: not an image, a broken one, a bomb', async (t) => {
  const reason = async (bytes: Buffer) => {
    try {
      await boundedJpeg(bytes, { side: 512, maxPixels: 40_000_000 })
      return 'accepted'
    } catch (err) {
      t.ok(err instanceof ImageRejected)
      return (err as ImageRejected).reason
    }
  }
  t.equal(await reason(Buffer.from('just text, no image')), 'unsupported')
  const jpeg = await cameraJpeg()
  t.equal(await reason(jpeg.subarray(0, 200)), 'corrupt')
  t.equal(await reason(pngBomb()), 'too-many-pixels')
})
