import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { ArchiveError, ArchiveTooLargeError, isArchive, readArchive, writeZip } from '../../lib/archive/members.js'
import { readTarStream, type TarEntry, TarError, tarEnd, tarHeader, tarPadding, TarParser } from '../../lib/archive/tar.js'

const LIMITS = { member: 1024 * 1024, total: 4 * 1024 * 1024 }

function gnuTar(files: Record<string, string>, gzip: boolean): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tar-'))
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
    execFileSync('tar', [gzip ? '-czf' : '-cf', join(dir, 'out'), '--format=ustar', '-C', dir, ...Object.keys(files)])
    return readFileSync(join(dir, 'out'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

t.test('archives written by GNU tar and by our zip writer are read back member for member', async (t) => {
  const files = { 'a.md': '# A\n\nÉté 🌞\n', 'b.txt': 'not wanted', 'c.md': 'x'.repeat(3000) }
  const wanted = (name: string) => name.endsWith('.md')
  for (const bytes of [
    gnuTar(files, false),
    gnuTar(files, true),
    writeZip(Object.entries(files).map(([name, s]) => ({ name, data: Buffer.from(s) }))),
  ]) {
    t.ok(isArchive(bytes))
    const members = readArchive(bytes, wanted, LIMITS)
    t.same(
      members.map((m) => [m.name, Buffer.from(m.data).toString()]),
      [
        ['a.md', files['a.md']],
        ['c.md', files['c.md']],
      ],
    )
  }
})

t.test('a tar stream parsed one byte at a time gives the same entries as in one piece', async (t) => {
  const bytes = gnuTar({ 'x.md': 'hello', 'y.md': 'z'.repeat(1500) }, false)
  const collect = (chunks: Uint8Array[]) => {
    const seen: Array<TarEntry & { text: string }> = []
    const parser = new TarParser({
      start: (e) => seen.push({ ...e, text: '' }),
      data: (c) => ((seen.at(-1) as { text: string }).text += Buffer.from(c).toString()),
      end: () => {},
    })
    for (const c of chunks) parser.push(c)
    parser.finish()
    return seen
  }
  const whole = collect([bytes])
  t.same(collect([...bytes].map((b) => Uint8Array.of(b))), whole)
  t.same(
    whole.map((e) => [e.name, e.size, e.type]),
    [
      ['x.md', 5, '0'],
      ['y.md', 1500, '0'],
    ],
  )
})

t.test('what our tar writer writes, GNU tar lists and our reader reads', async (t) => {
  const data = Buffer.from('{"ok":true}')
  const archive = gzipSync(Buffer.concat([tarHeader('manifest.json', data.length, 0), data, tarPadding(data.length), tarEnd()]))
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tar-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'a.tgz'), archive)
  t.equal(execFileSync('tar', ['-tzf', join(dir, 'a.tgz')]).toString(), 'manifest.json\n')
  const names: string[] = []
  const plain = Buffer.concat([tarHeader('manifest.json', data.length, 0), data, tarPadding(data.length), tarEnd()])
  const source = (async function* () {
    yield new Uint8Array(plain)
  })()
  await readTarStream(source, { start: (e) => void names.push(e.name), data: () => {}, end: () => {} })
  t.same(names, ['manifest.json'])
})

/** The error `fn` throws (tap's throws compares an error class as an object, not with instanceof). */
function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (err) {
    return err
  }
  return undefined
}

t.test('damaged, truncated and oversized archives are refused', async (t) => {
  const good = gnuTar({ 'a.md': 'y'.repeat(2000) }, false)
  const damaged = Buffer.from(good)
  damaged[10] = damaged[10] === 0x41 ? 0x42 : 0x41
  t.ok(thrown(() => readArchive(damaged, () => true, LIMITS)) instanceof ArchiveError, 'a changed header fails its checksum')
  t.ok(thrown(() => new TarParser({ start() {}, data() {}, end() {} }).push(damaged)) instanceof TarError)
  const short = good.subarray(0, 1000)
  t.ok(thrown(() => readArchive(short, () => true, LIMITS)) instanceof ArchiveError, 'an archive cut inside a member')
  const source = (async function* () {
    yield new Uint8Array(short)
  })()
  await t.rejects(readTarStream(source, { start() {}, data() {}, end() {} }), { message: /ends in the middle/ })
  // A gzip bomb: 16 MiB of zeros inside a member, refused while inflating, long before it is all unpacked.
  const bomb = gzipSync(Buffer.concat([tarHeader('big.md', 16 * 1024 * 1024, 0), Buffer.alloc(16 * 1024 * 1024), tarEnd()]))
  t.ok(bomb.length < 200 * 1024)
  t.ok(thrown(() => readArchive(bomb, () => true, LIMITS)) instanceof ArchiveTooLargeError, 'a member over its limit')
  t.ok(thrown(() => readArchive(bomb, () => false, LIMITS)) instanceof ArchiveTooLargeError, 'skipped members are bounded too')
})
