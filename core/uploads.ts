// The types of request.isMultipart() and request.file(), which @fastify/multipart adds to Fastify's request.
import type {} from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { HttpError } from './errors.js'

export interface UploadOptions {
  /** What the client uploads, for the messages: 'the file', 'the Takeout archive'. */
  what: string
  /** The limit the route registered @fastify/multipart with (`limits.fileSize`), for the 413 message. */
  maxBytes: number
}

/**
 * The one file of a multipart/form-data request (field `file`), read whole, for a plugin's upload route
 * that registered @fastify/multipart. A body that is not multipart is a 415; a missing part a 400; a file
 * over the limit a 413; a body the multipart parser cannot read (no boundary, a part cut short, a bad
 * part header) a 400, not the 500 its plain Error would become.
 */
export async function readUploadedFile(request: FastifyRequest, options: UploadOptions): Promise<{ bytes: Buffer; filename: string }> {
  if (!request.isMultipart()) throw new HttpError('UNSUPPORTED_MEDIA_TYPE', `Upload ${options.what} as multipart/form-data (field "file")`)
  try {
    const part = await request.file()
    if (!part) throw new HttpError('VALIDATION_ERROR', 'a file part is required', { field: 'file', constraint: 'required' })
    return { bytes: await part.toBuffer(), filename: part.filename ?? '' }
  } catch (err) {
    if (err instanceof HttpError) throw err
    const { code, statusCode } = err as { code?: string; statusCode?: number }
    if (code === 'FST_REQ_FILE_TOO_LARGE') {
      const noun = options.what.replace(/^the /, '')
      throw new HttpError('PAYLOAD_TOO_LARGE', `The ${noun} is larger than ${options.maxBytes} bytes`)
    }
    // @fastify/multipart's own errors carry their status (413 for too many parts...); busboy's do not.
    if (statusCode !== undefined) throw err
    throw new HttpError('VALIDATION_ERROR', `Malformed multipart body: ${(err as Error).message}`)
  }
}
