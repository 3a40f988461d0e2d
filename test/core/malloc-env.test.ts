import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { freePort } from '../../plugins/dns/test/support.js'

/**
 * glibc reads MALLOC_TRIM_THRESHOLD_ when a process starts, so the daemon cannot set it itself: every
 * launcher must (issue 11, docs/performance.md "Idle memory (third pass)": ~4 MB less resident at idle).
 * These are the launchers of the daemon: `npm start` (also started here for real) and the Debian package's
 * systemd unit.
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

t.test('npm start runs the bundled daemon with the setting in its environment', async (t) => {
  // The README's first command, as a user runs it: npm starts `sh -c <script>`, which starts node.
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-npm-start-'))
  const port = await freePort()
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, HEARTH_DATA_DIR: dataDir, HEARTH_PORT: String(port), HEARTH_HOST: '127.0.0.1', HEARTH_DNS_PORT: '0' },
    stdio: 'ignore',
    detached: true,
  })
  t.teardown(() => {
    try {
      process.kill(-(npm.pid as number), 'SIGTERM')
    } catch {
      // already gone
    }
    rmSync(dataDir, { recursive: true, force: true })
  })
  let health = 0
  for (let end = Date.now() + 30_000; health !== 200 && Date.now() < end;) {
    health = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
      (r) => r.status,
      () => 0,
    )
    if (health !== 200) await new Promise((r) => setTimeout(r, 100))
  }
  t.equal(health, 200, 'the daemon answers /health')
  const daemon = descendants(npm.pid as number).find((pid) => {
    const [command, script] = argv(pid)
    return command?.endsWith('node') && script === 'dist/bundle/hearthd.mjs'
  })
  t.ok(daemon, 'node runs dist/bundle/hearthd.mjs')
  const environ = readFileSync(`/proc/${daemon}/environ`, 'latin1').split('\0')
  t.ok(environ.includes(SETTING), `${SETTING} is in the daemon's environment`)
})

function descendants(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  return children.flatMap((child) => [child, ...descendants(child)])
}

function argv(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')
}
