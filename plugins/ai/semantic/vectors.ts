/** Embeddings as unit-length Float32 vectors in little-endian BLOBs: cosine similarity is then a dot product. */

export function toBlob(vector: ArrayLike<number>): Buffer {
  let norm = 0
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i]
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0
  const out = new Float32Array(vector.length)
  for (let i = 0; i < vector.length; i++) out[i] = vector[i] * scale
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength)
}

export function fromBlob(blob: Buffer): Float32Array {
  // better-sqlite3's buffers need not be 4-byte aligned; a Float32Array view must be.
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4)
  const copy = new Uint8Array(blob)
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4)
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

/** Scores are cosine similarities rounded to 6 decimals: both search paths answer the same numbers. */
export const roundScore = (x: number) => Math.round(x * 1e6) / 1e6
