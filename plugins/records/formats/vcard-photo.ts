import type { Component } from '../../../lib/content-line/components.js'
import type { ContentLine } from '../../../lib/content-line/lines.js'
import { paramValues } from '../../../lib/content-line/lines.js'
import type { VCardVersion } from '../../../lib/vcard/params.js'

/**
 * vCard PHOTO, inline only: vCard 4.0's `PHOTO:data:image/jpeg;base64,...` and 3.0's (and 2.1's)
 * `PHOTO;ENCODING=b;TYPE=JPEG:...`. A photo given by address (`PHOTO;VALUE=uri:https://...`) is
 * never fetched: nothing in a file or a client's card makes Hearth open a connection; such a line
 * is not read as a photo (an import drops it, CardDAV keeps it as the client wrote it).
 * The bytes read here are as received: the records plugin re-encodes them before storing anything.
 */
export interface InlinePhoto {
  /** The media type the card declares (lower case), when it declares one. */
  declared: string | null
  bytes: Buffer
}

const DATA_URI = /^data:([^;,]*)((?:;[^;,]*)*),/i
const BASE64_TEXT = /^[A-Za-z0-9+/=\s]*$/

/** The inline image of a PHOTO line, or null (a URI, or not base64). */
export function readPhoto(cl: ContentLine): InlinePhoto | null {
  const value = cl.value.trim()
  const data = DATA_URI.exec(value.slice(0, 200))
  if (data) {
    if (!/;base64$/i.test(data[2] ?? '')) return null
    return decoded(value.slice(data[0].length), data[1]?.toLowerCase() || null)
  }
  const encoding = paramValues(cl, 'ENCODING')
  if (!encoding.includes('b') && !encoding.includes('base64')) return null
  const type = paramValues(cl, 'TYPE').find((t) => /^[a-z0-9.+-]+$/.test(t))
  return decoded(value, type ? (type.includes('/') ? type : `image/${type}`) : null)
}

function decoded(text: string, declared: string | null): InlinePhoto | null {
  // Buffer's decoder skips what is not base64; a value of something else is no photo at all.
  if (!text || !BASE64_TEXT.test(text)) return null
  const bytes = Buffer.from(text, 'base64')
  return bytes.length > 0 ? { declared, bytes } : null
}

/** The first inline PHOTO of a card, if any (a card has one photo; later ones are ignored). */
export function cardPhoto(card: Component): InlinePhoto | null {
  for (const cl of card.properties) {
    if (cl.name !== 'PHOTO') continue
    const photo = readPhoto(cl)
    if (photo) return photo
  }
  return null
}

/** The PHOTO line of a stored JPEG in the card's version, folded at 75 octets (base64 is ASCII: 1 octet a character). */
export function photoLine(jpeg: Buffer, version: VCardVersion): string {
  const head = version === '4.0' ? 'PHOTO:data:image/jpeg;base64,' : 'PHOTO;ENCODING=b;TYPE=JPEG:'
  const line = head + jpeg.toString('base64')
  const parts = [line.slice(0, 75)]
  for (let at = 75; at < line.length; at += 74) parts.push(line.slice(at, at + 74))
  return parts.join('\r\n ')
}
