import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { readArchive } from '../../lib/archive/members.js'
import { zipStream } from '../../lib/archive/zip-stream.js'

t.test('a streamed zip is read back member for member, by us and by unzip', async (t) => {
  const files = { 'a.md': '# A\n\nÉté 🌞\n', 'dir/b.md': 'x'.repeat(100_000), 'c.md': '' }
  const chunks = [...zipStream(Object.entries(files).map(([name, s]) => ({ name, data: Buffer.from(s) })))]
  const zip = Buffer.concat(chunks)
  const members = readArchive(zip, () => true, { member: 1 << 20, total: 1 << 22 })
  t.same(
    members.map((m) => [m.name, Buffer.from(m.data).toString()]),
    Object.entries(files),
  )
  const dir = mkdtempSync(join(tmpdir(), 'hearth-zip-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'out.zip'), zip)
  try {
    execFileSync('unzip', ['-tq', join(dir, 'out.zip')])
    t.pass('unzip -t finds the archive sound')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') t.comment('unzip is not installed: the check by unzip is left out')
    else throw err
  }
})

t.test('members are produced one at a time, each handed on before the next is asked for', async (t) => {
  let asked = 0
  function* members() {
    for (let i = 0; i < 3; i++) {
      asked++
      yield { name: `${i}.txt`, data: Buffer.alloc(1000, 97 + i) }
    }
  }
  const stream = zipStream(members())
  const first = stream.next()
  t.equal(asked, 1, 'the first chunk needed only the first member')
  t.ok(!first.done && first.value.length > 0)
  const rest = [...stream]
  t.equal(asked, 3)
  t.ok(rest.length > 0)
})

t.test('an empty archive is a valid zip', async (t) => {
  const zip = Buffer.concat([...zipStream([])])
  t.same(
    readArchive(zip, () => true, { member: 1, total: 1 }),
    [],
  )
})
