import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const MODULE = fileURLToPath(new URL('../../core/young-generation.js', import.meta.url))

/** A fresh process (this one's young generation is already grown by tap): the new space's committed MB
 *  after surviving allocations, held then released. */
const script = `
import v8 from 'node:v8'
import { armYoungGenerationHold, youngGenerationCheckpoint, releaseYoungGeneration } from ${JSON.stringify(MODULE)}
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576
const kept = []
const survive = (mb) => { for (let i = 0; i < mb * 1024; i++) kept.push({ a: i, b: [i, i + 1, i + 2], c: 'x' + i }) }
armYoungGenerationHold()
while (newSpace() < 8) { survive(1); youngGenerationCheckpoint() }
survive(60)
const held = newSpace()
releaseYoungGeneration()
survive(60)
console.log(JSON.stringify({ held, released: newSpace() }))
`

t.test('the young generation stops growing at 4 MB semi-spaces while held, and grows again after', async (t) => {
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as {
    held: number
    released: number
  }
  t.equal(out.held, 8, 'committed new space stays at 8 MB while the daemon starts')
  t.ok(out.released > 8, `grows after release (${out.released} MB)`)
})

t.test('one major GC runs after start, without putting gc on the global object', async (t) => {
  const probe = `
import { PerformanceObserver, constants } from 'node:perf_hooks'
import { collectOnceAfterStart } from ${JSON.stringify(MODULE)}
let majors = 0
new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++ }).observe({ entryTypes: ['gc'] })
collectOnceAfterStart(10)
setTimeout(() => console.log(JSON.stringify({ majors, globalGc: typeof globalThis.gc })), 1500)
`
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' })) as {
    majors: number
    globalGc: string
  }
  t.ok(out.majors >= 1, `${out.majors} major GC`)
  t.equal(out.globalGc, 'undefined')
})

t.test('after that GC, V8 shrinks the young generation the start grew, within seconds', async (t) => {
  const probe = `
import v8 from 'node:v8'
import { collectOnceAfterStart } from ${JSON.stringify(MODULE)}
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').physical_space_size / 1048576
let kept = []
for (let i = 0; i < 40 * 1024; i++) kept.push({ a: i, b: [i, i + 1, i + 2], c: 'x' + i })
const grown = newSpace()
kept = null
collectOnceAfterStart(10)
const started = Date.now()
const poll = setInterval(() => {
  if (newSpace() < 1 || Date.now() - started > 25000) {
    clearInterval(poll)
    console.log(JSON.stringify({ grown, idle: newSpace(), seconds: (Date.now() - started) / 1000 }))
  }
}, 250)
`
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' })) as {
    grown: number
    idle: number
    seconds: number
  }
  t.ok(out.grown >= 4, `the new space grew to ${out.grown.toFixed(1)} MB`)
  t.ok(out.idle < 1, `shrunk to ${out.idle.toFixed(2)} MB after ${out.seconds} s`)
})
