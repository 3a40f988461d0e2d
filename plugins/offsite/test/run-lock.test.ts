import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { tempDir } from '../../../test/cli-process.js'
import { takeRunLock } from '../run-lock.js'

// A pid above the kernel's pid_max (4194304 at most): no process has it, like an owner killed mid-run.
const DEAD = '99999999\n'

t.test('a lock held by a live run is refused; one left by a dead run is taken over', async (t) => {
  const file = join(tempDir(t, 'hearth-run-lock-'), 'run.lock')
  const release = takeRunLock(file)
  t.throws(() => takeRunLock(file), /another off-site run is under way/)
  release()
  writeFileSync(file, DEAD)
  const again = takeRunLock(file)
  t.match(readFileSync(file, 'utf8'), new RegExp(`^${process.pid} `))
  again()
  t.same(readdirSync(join(file, '..')), [], 'no lock and no breaker left behind')
})

t.test('two takers that read the same dead lock: one holds it, the other is refused', async (t) => {
  const dir = tempDir(t, 'hearth-run-lock-')
  const file = join(dir, 'run.lock')
  writeFileSync(file, DEAD)
  let second: (() => void) | null = null
  // B reads the dead lock and takes it over in the instant after A read it and before A acts.
  const first = () => takeRunLock(file, { beforeTakeover: () => void (second ??= takeRunLock(file)) })
  t.throws(first, /another off-site run/, 'A finds B holding the lock and stops')
  t.ok(second, 'B holds the lock')
  const held = readFileSync(file, 'utf8')
  ;(second as unknown as () => void)()
  t.notOk(readdirSync(dir).includes('run.lock'), `B's release removed its lock (${held.trim()})`)
})
