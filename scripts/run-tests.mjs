// Runs tap, passes its output through, and closes with one plain summary line
// ("tests: N passed, N failed") that CI systems read; tap's own exit code is kept.
import { spawn } from 'node:child_process'

const child = spawn('npx', ['tap', ...process.argv.slice(2)], { stdio: ['inherit', 'pipe', 'inherit'] })
let tail = ''
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  tail = (tail + chunk).slice(-4096)
})
child.on('exit', (code, signal) => {
  const summary = [...tail.matchAll(/# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?[^}]*\}/g)].pop()
  if (summary) {
    const [, total, pass, fail = '0'] = summary
    const other = Number(total) - Number(pass) - Number(fail)
    console.log(`tests: ${pass} passed, ${fail} failed${other > 0 ? `, ${other} skipped` : ''}`)
  }
  process.exit(code ?? (signal ? 1 : 0))
})
