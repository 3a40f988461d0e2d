/**
 * A drop-in for dns2's Packet.Writer, handed to Packet#toBuffer and
 * Packet.Resource.encode. dns2's own writer keeps one array element per bit
 * and joins strings to materialise, which made encoding a cold answer cost
 * ~100 µs; this one writes bytes (bit by bit only for the header's flag
 * fields). dns2 still does all the DNS encoding: names, compression, rdata.
 */
export class ByteWriter {
  /** dns2's name-compression table (suffix → offset), set by Packet#toBuffer. */
  names?: Map<string, number>
  private buf = Buffer.alloc(512)
  private bits = 0

  private ensure(bytes: number): void {
    if (bytes <= this.buf.length) return
    const bigger = Buffer.alloc(Math.max(bytes, this.buf.length * 2))
    this.buf.copy(bigger)
    this.buf = bigger
  }

  private writeBit(bit: number): void {
    const at = this.bits >> 3
    const mask = 1 << (7 - (this.bits & 7))
    if (bit) this.buf[at] |= mask
    else this.buf[at] &= ~mask
    this.bits++
  }

  /** Same contract as dns2's write(d, size): the `size` low bits of d, most significant first. */
  write(d: number, size: number): void {
    this.ensure((this.bits + size + 7) >> 3)
    if ((this.bits & 7) === 0 && (size & 7) === 0 && size <= 32) {
      for (let shift = size - 8; shift >= 0; shift -= 8) {
        this.buf[this.bits >> 3] = (d >>> shift) & 0xff
        this.bits += 8
      }
      return
    }
    for (let i = size - 1; i >= 0; i--) this.writeBit(i >= 32 ? 0 : (d >>> i) & 1)
  }

  bitLength(): number {
    return this.bits
  }

  byteLength(): number {
    return this.bits / 8
  }

  patch(bitOffset: number, value: number, size: number): void {
    const saved = this.bits
    this.bits = bitOffset
    this.write(value, size)
    this.bits = saved
  }

  writeBuffer(other: ByteWriter): void {
    const bytes = other.toBuffer()
    for (const byte of bytes) this.write(byte, 8)
  }

  /** A view, not a copy: dns2 calls this after every record; callers copy the final one. */
  toBuffer(): Buffer {
    return this.buf.subarray(0, (this.bits + 7) >> 3)
  }
}
