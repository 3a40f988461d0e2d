import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'

/**
 * glibc reads MALLOC_TRIM_THRESHOLD_ when a process starts, so the daemon cannot set it itself: every
 * launcher must (docs/performance.md "Idle memory (third pass)": ~4 MB less resident at idle).
 * These are the launchers of the daemon: `npm start` and the Debian package's systemd unit
 * (test/core/process.test.ts also reads the setting in the environment of the daemon `npm start` runs).
 */
const ROOT = new URL('../../../', import.meta.url).pathname
const SETTING = 'MALLOC_TRIM_THRESHOLD_=131072'

t.test('npm start sets the malloc trim threshold before node', async (t) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  t.equal(pkg.scripts.start, `${SETTING} node dist/bundle/hearthd.mjs`)
})

t.test('the systemd unit sets it for ExecStart', async (t) => {
  const unit = readFileSync(join(ROOT, 'config/hearth.service'), 'utf8')
  t.match(unit, new RegExp(`^Environment=${SETTING}$`, 'm'))
})
