import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError, collectSources, loadCoreConfig } from '../../core/config.js'
import { ensureSecrets } from '../../core/secrets.js'

t.test('precedence: environment > hearth.env > defaults; secrets generated once, 0600', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-cfg-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const first = loadCoreConfig(ensureSecrets(collectSources({ HEARTH_DATA_DIR: dir })))
  t.equal(first.port, 7200)
  t.equal(first.tier, 'free')
  t.match(first.systemToken, /^hst_[0-9a-f]{64}$/)
  const file = join(dir, 'hearth.env')
  t.equal(statSync(file).mode & 0o777, 0o600)

  writeFileSync(file, `${readFileSync(file, 'utf8')}HEARTH_PORT=7300\nHEARTH_TIER="pro"\n`)
  const second = loadCoreConfig(ensureSecrets(collectSources({ HEARTH_DATA_DIR: dir })))
  t.equal(second.port, 7300, 'hearth.env over defaults')
  t.equal(second.tier, 'pro')
  t.equal(second.systemToken, first.systemToken, 'secrets are not regenerated')
  const third = loadCoreConfig(ensureSecrets(collectSources({ HEARTH_DATA_DIR: dir, HEARTH_PORT: '7400' })))
  t.equal(third.port, 7400, 'environment over hearth.env')
})

t.test('bad values stop the start with one line per variable', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-cfg-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const sources = ensureSecrets(
    collectSources({ HEARTH_DATA_DIR: dir, HEARTH_PORT: '70000', HEARTH_TIER: 'gold', HEARTH_LOG_LEVEL: 'loud' }),
  )
  try {
    loadCoreConfig(sources)
    t.fail('should throw')
  } catch (err) {
    t.ok(err instanceof ConfigError)
    const problems = (err as ConfigError).problems
    t.equal(problems.length, 3)
    t.match(problems[0], /^HEARTH_PORT=70000 is invalid/)
    t.match(problems[1], /^HEARTH_TIER=gold is invalid/)
    t.match(problems[2], /^HEARTH_LOG_LEVEL=loud is invalid/)
  }
})
