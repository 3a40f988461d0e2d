/**
 * `npm run lint:openapi`: the served OpenAPI document checked with Redocly's
 * recommended rules; any error or warning fails (Redocly itself fails on errors only).
 * Justified exceptions live in .redocly.lint-ignore.yaml, each with its reason.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { openApiDocument } from './document.js'

const FILE = 'dist/openapi.json'

interface Problem {
  ruleId: string
  severity: 'error' | 'warn'
  message: string
  ignored?: boolean
  location: Array<{ pointer: string }>
}

writeFileSync(FILE, `${JSON.stringify(await openApiDocument(), null, 2)}\n`)
const run = spawnSync('npx', ['redocly', 'lint', FILE, '--format=json', '--max-problems=10000'], {
  encoding: 'utf8',
  // No telemetry or update check from a CI machine.
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
})
let problems: Problem[]
try {
  problems = (JSON.parse(run.stdout) as { problems: Problem[] }).problems.filter((p) => !p.ignored)
} catch {
  process.stderr.write(`redocly did not answer JSON (exit ${run.status}):\n${run.stdout}\n${run.stderr}\n`)
  process.exit(2)
}
for (const p of problems) console.log(`${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)
console.log(`${FILE}: ${problems.length} problems with Redocly's recommended rules`)
process.exit(problems.length === 0 ? 0 : 1)
