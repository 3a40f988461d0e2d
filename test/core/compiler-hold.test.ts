import { execFileSync } from 'node:child_process'
import t from 'tap'

/**
 * The daemon's entry holds V8's TurboFan and Sparkplug off while it starts and turns them back on once it
 * listens (core/compiler-hold.ts, issue 11: idle memory). What the daemon relies on: code that runs hot during
 * the hold stays in the interpreter, the same code tiers up as usual after the release (a by-id load must not
 * run interpreted), and flags the operator gave node are left as given. Checked in a node of its own with V8's
 * %GetOptimizationStatus (TurboFan compiling on the main thread so that the answer does not race it).
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
holdCompilersDuringStart()
warm()
const held = status()
releaseCompilers()
warm()
console.log(JSON.stringify({ held, released: status() }))
`

function run(nodeArgs: string[]): { held: number; released: number } {
  const out = execFileSync(
    process.execPath,
    ['--allow-natives-syntax', '--no-concurrent-recompilation', ...nodeArgs, '--input-type=module', '-e', SCRIPT],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  )
  return JSON.parse(out) as { held: number; released: number }
}

t.test('held: hot code stays interpreted; released: it tiers up to TurboFan', async (t) => {
  const { held, released } = run([])
  t.ok(held & INTERPRETED, 'interpreted while held')
  t.notOk(held & (TURBOFANNED | BASELINE), 'neither baseline nor optimized code while held')
  t.ok(released & TURBOFANNED, 'optimized by TurboFan after the release')
})

t.test('a compiler flag the operator gave node is left as given', async (t) => {
  const { held, released } = run(['--no-turbofan'])
  t.notOk(held & TURBOFANNED, 'not optimized while held')
  t.notOk(released & TURBOFANNED, 'still not optimized after the release: --no-turbofan stands')
  t.ok(released & BASELINE, 'Sparkplug was not held either (the operator chose the compilers)')
})
