import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { cli, freePort, quietEnv, startDaemon, tempDir } from '../cli-process.js'

/** `hearth doctor` judges the daemon's settings, not the shell's, through real CLI and daemon processes. */
const OWNER = ['setup', '--email', 'owner@admin.test', '--password', 'owner password 1']
t.test("doctor reads the daemon's settings: the running daemon's environment, else the unit's", async (t) => {
  const dataDir = join(tempDir(t), 'data')
  const env = quietEnv(dataDir)
  t.equal((await cli(OWNER, env)).code, 0)
  const [daemonHttp, unitHttp, unitHttps] = await Promise.all([freePort(), freePort(), freePort()])
  const findings = async (extra: Record<string, string> = {}) =>
    JSON.parse((await cli(['doctor', '--json'], { ...env, ...extra })).stdout) as Array<{ check: string; message: string }>
  const has = (list: Array<{ check: string }>, check: string) => list.some((f) => f.check === check)

  const daemon = await startDaemon(t, dataDir, { HEARTH_PROXY_HTTP_PORT: String(daemonHttp) })
  let d = await findings()
  t.match(d[0], { check: 'settings', message: new RegExp(`running daemon's environment \\(pid ${daemon.pid}\\)`) })
  t.ok(has(d, `port ${daemonHttp}/tcp`), "the daemon's HTTP port is checked, not this shell's default")
  await daemon.stop()

  const dir = tempDir(t)
  writeFileSync(join(dir, 'settings.env'), `# the admin's settings\nHEARTH_PROXY_HTTPS_PORT=${unitHttps}\n`)
  writeFileSync(
    join(dir, 'hearth.service'),
    `[Unit]\nDescription=test\n\n[Service]\nUser=hearth\nEnvironment=HEARTH_DATA_DIR=${dataDir}\n` +
      `Environment="HEARTH_PROXY_HTTP_PORT=${unitHttp}" HEARTH_LOG_LEVEL=warn\n` +
      `EnvironmentFile=-${join(dir, 'settings.env')}\nEnvironmentFile=-${join(dir, 'absent.env')}\nExecStart=/bin/true\n`,
  )
  d = await findings({ HEARTH_UNIT_FILE: join(dir, 'hearth.service') })
  t.match(d[0], { check: 'settings', message: /the unit's settings \(.*hearth\.service, .*settings\.env\)/ })
  t.ok(has(d, `port ${unitHttp}/tcp`), "the unit's Environment= is read")
  t.ok(has(d, `port ${unitHttps}/tcp`), "the unit's EnvironmentFile= is read")
  d = await findings()
  t.match(d[0], { check: 'settings', message: /this shell's environment/ })
})
