import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const MODULE = fileURLToPath(new URL('../../core/tick-shape.js', import.meta.url))

/**
 * A fresh process: bursts of nextTick with a major GC between them (what a daemon under load sees),
 * then V8's feedback for the property stores of nextTick's tick-object literal, read from %DebugPrint
 * (Node 20 prints each feedback slot with its state).
 */
const script = (keep: boolean) => `
import { keepTickShape } from ${JSON.stringify(MODULE)}
if (${keep}) keepTickShape()
const burst = () => new Promise((resolve) => {
  let n = 0
  const one = () => { if (++n === 200) resolve() }
  for (let i = 0; i < 200; i++) process.nextTick(one, i)
})
for (let round = 0; round < 8; round++) { await burst(); globalThis.gc() }
await burst()
;%DebugPrint(process.nextTick)
`

const literalStores = (keep: boolean) => {
  // V8 prints with C stdio to fd 1: a file, not a pipe (a full non-blocking pipe drops the rest).
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tick-'))
  const file = join(dir, 'feedback.txt')
  const fd = openSync(file, 'w')
  try {
    execFileSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', script(keep)], {
      stdio: ['ignore', fd, 'inherit'],
      // Without the test runner's loaders (NODE_OPTIONS): the feedback printed is the plain process's.
      env: { ...process.env, NODE_OPTIONS: '' },
    })
  } finally {
    closeSync(fd)
  }
  const printed = readFileSync(file, 'utf8')
  rmSync(dir, { recursive: true })
  return [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral ([A-Z]+)/g)].map((m) => m[1])
}

t.test("nextTick's tick objects keep one shape across major GCs once one of them is kept", async (t) => {
  const kept = literalStores(true)
  t.equal(kept.length, 4, "the literal's four property stores are found in the feedback")
  t.same(kept, ['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC'], 'every store stays monomorphic')
})

t.test('without it, the stores go megamorphic: what the daemon paid per nextTick', async (t) => {
  // If a Node upgrade makes this pass no longer, keepTickShape has nothing left to do.
  t.ok(literalStores(false).includes('MEGAMORPHIC'), 'at least one store is megamorphic')
})
