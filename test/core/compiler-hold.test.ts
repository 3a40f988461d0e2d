import { execFileSync } from 'node:child_process'
import t from 'tap'

/**
 * The daemon's entry holds V8's TurboFan and Sparkplug off while it starts, turns Sparkplug back on once it
 * listens and TurboFan once it is busy (core/compiler-hold.ts, issue 11: idle memory). What the daemon relies
 * on: code that runs hot during the start stays in the interpreter, an idle daemon does not page TurboFan in,
 * a busy one tiers up as usual (a by-id load must not run unoptimized), and flags the operator gave node are
 * left as given. Checked in a node of its own with V8's %GetOptimizationStatus (TurboFan compiling on the main
 * thread so that the answer does not race it).
 */
const HOLD = new URL('../../core/compiler-hold.js', import.meta.url).href
const TURBOFANNED = 1 << 6
const INTERPRETED = 1 << 7
const BASELINE = 1 << 15

const SCRIPT = `
import { holdCompilersDuringStart, releaseCompilers } from ${JSON.stringify(HOLD)}
function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s }
const warm = () => { for (let i = 0; i < 20000; i++) hot(50) }
const status = () => %GetOptimizationStatus(hot)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
holdCompilersDuringStart()
warm()
const held = status()
releaseCompilers()
warm()
await sleep(1300)
warm()
const idle = status()
const burn = (ms) => { const until = Date.now() + ms; while (Date.now() < until) hot(1000) }
if (process.env.LOAD === 'steady') {
  // A trickle: 150 ms of every second, never a quarter of a CPU within one.
  for (let i = 0; i < 6; i++) { burn(150); await sleep(850) }
} else {
  burn(1200)
}
await sleep(100)
warm()
console.log(JSON.stringify({ held, idle, busy: status() }))
`

type Statuses = { held: number; idle: number; busy: number }

function run(nodeArgs: string[], load: 'burst' | 'steady' = 'burst'): Statuses {
  const out = execFileSync(
    process.execPath,
    ['--allow-natives-syntax', '--no-concurrent-recompilation', ...nodeArgs, '--input-type=module', '-e', SCRIPT],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', LOAD: load } },
  )
  return JSON.parse(out) as Statuses
}

t.test('held while starting; Sparkplug after listen; TurboFan once the process is busy', async (t) => {
  const { held, idle, busy } = run([])
  t.ok(held & INTERPRETED, 'interpreted while held')
  t.notOk(held & (TURBOFANNED | BASELINE), 'neither baseline nor optimized code while held')
  t.ok(idle & BASELINE, 'baseline code after the release')
  t.notOk(idle & TURBOFANNED, 'not optimized while the process is idle')
  t.ok(busy & TURBOFANNED, 'optimized by TurboFan once the process has been busy for a second')
})

t.test('a steady trickle of work brings TurboFan back too', async (t) => {
  const { idle, busy } = run([], 'steady')
  t.notOk(idle & TURBOFANNED, 'not optimized while idle')
  t.ok(busy & TURBOFANNED, 'optimized after a few seconds of 15% of a CPU')
})

t.test('a compiler flag the operator gave node is left as given, however it is spelled', async (t) => {
  for (const flag of ['--no-turbofan', '--no_turbofan', '--noturbofan']) {
    const { held, busy } = run([flag])
    t.ok(held & BASELINE, `${flag}: Sparkplug was not held (the operator chose the compilers)`)
    t.notOk(busy & TURBOFANNED, `${flag}: never optimized`)
  }
})
