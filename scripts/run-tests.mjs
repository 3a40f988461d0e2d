// Runs tap, passes its output through, and closes with the failures repeated (each `not ok` line with
// the diagnostics tap printed under it) and one plain summary line ("tests: N passed, N failed") that
// CI systems read; tap's own exit code is kept. CI logs are often kept only as their tail: the failures
// are repeated there so that the tail alone names what failed.
import { spawn } from 'node:child_process'

const MAX_FAILURES = 20
const MAX_LINES_PER_FAILURE = 40

const child = spawn('npx', ['tap', ...process.argv.slice(2)], { stdio: ['inherit', 'pipe', 'inherit'] })
let tail = ''
let partial = ''
const failures = []
let open = null
let openIndent = 0
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  tail = (tail + chunk).slice(-4096)
  const lines = (partial + chunk).split('\n')
  partial = lines.pop() ?? ''
  for (const line of lines) collect(line)
})

function collect(line) {
  const indent = line.length - line.trimStart().length
  const trimmed = line.trimStart()
  if (open && (indent < openIndent || (indent === openIndent && /^(not )?ok |^# Subtest/.test(trimmed)))) open = null
  if (open) {
    if (open.length < MAX_LINES_PER_FAILURE) open.push(line)
    return
  }
  // A failing assertion is followed by its subtest's and its file's `not ok`: all three are kept, the
  // assertion with its diagnostics, the others name where it was.
  if (trimmed.startsWith('not ok ') && failures.length < MAX_FAILURES) {
    failures.push([line])
    // A file's own diagnostics are how tap ran it; the assertion's above say what failed.
    if (indent > 0) [open, openIndent] = [failures.at(-1), indent]
  }
}

child.on('exit', (code, signal) => {
  if (partial) collect(partial)
  if (failures.length > 0) {
    console.log('\n# failures, repeated:')
    for (const lines of failures) console.log(lines.join('\n'))
  }
  const summary = [...tail.matchAll(/# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?[^}]*\}/g)].pop()
  if (summary) {
    const [, total, pass, fail = '0'] = summary
    const other = Number(total) - Number(pass) - Number(fail)
    console.log(`tests: ${pass} passed, ${fail} failed${other > 0 ? `, ${other} skipped` : ''}`)
  }
  process.exit(code ?? (signal ? 1 : 0))
})
