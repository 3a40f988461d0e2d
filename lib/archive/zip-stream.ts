import { deflateRawSync } from 'node:zlib'
import { Zip, ZipPassThrough } from 'fflate'
import type { ArchiveMember } from './members.js'

/**
 * A zip written member by member: each member is deflated and handed on as it comes, so writing
 * an archive holds one member (and the directory's few bytes a member) instead of all of them.
 * The members are produced lazily by the caller's iterable.
 */
export function* zipStream(members: Iterable<ArchiveMember>, level = 6): Generator<Uint8Array> {
  const out: Uint8Array[] = []
  let failure: Error | null = null
  // Every member is pushed whole and deflated at once: the callback has run by the time push() returns.
  const zip = new Zip((err, data) => {
    if (err) failure = err
    else out.push(data)
  })
  for (const member of members) {
    const file = new DeflatedMember(member.name, level)
    zip.add(file)
    file.push(member.data, true)
    if (failure) throw failure
    yield* out.splice(0)
  }
  zip.end()
  if (failure) throw failure
  yield* out.splice(0)
}

/**
 * A member deflated by zlib in one call (fflate's own deflater allocates its windows anew for every
 * member: thousands of members churned hundreds of megabytes). The checksum and size are fflate's,
 * over the member's own bytes.
 */
class DeflatedMember extends ZipPassThrough {
  constructor(
    name: string,
    private readonly level: number,
  ) {
    super(name)
    this.compression = 8
  }

  protected override process(chunk: Uint8Array, final: boolean): void {
    this.ondata(null, deflateRawSync(chunk, { level: this.level }), final)
  }
}
