import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import t from 'tap'
import { build, owner } from '../helper.js'

/**
 * A client generated from the served document, as a third-party UI or agent
 * would make one: openapi-typescript turns the document into types, a small
 * program lists notes and creates one with openapi-fetch, `tsc` type-checks it
 * (and refuses the same program with a misspelt field), and the program runs
 * against the daemon.
 */
const exec = promisify(execFile)
const ROOT = new URL('../../../', import.meta.url).pathname
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')

const PROGRAM = (body: string) => `import createClient from 'openapi-fetch'
import type { paths } from './hearth-api.js'

const client = createClient<paths>({ baseUrl: process.env.HEARTH_URL, headers: { authorization: \`Bearer \${process.env.HEARTH_TOKEN}\` } })

const created = await client.POST('/api/v1/notes', { body: ${body} })
if (!created.data) throw new Error(\`create failed: \${created.error?.error.code}\`)
const id: string = created.data.data.id
const page = await client.GET('/api/v1/notes', { params: { query: { limit: 10, tag: ['sdk'] } } })
if (!page.data) throw new Error(\`list failed: \${page.error?.error.code}\`)
const titles: Array<string | null> = page.data.data.map((note) => ('title' in note ? (note.title ?? null) : null))
const total: number = page.data.meta.total
console.log(JSON.stringify({ id, titles, total, tier: page.data.tier }))
`

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    outDir: 'out',
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
  },
  include: ['*.ts'],
}

t.test('a typed client generated from the document lists and creates notes', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const document = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
  const types = astToString(await openapiTS(document))

  // Inside the repository, so that the program resolves openapi-fetch from its node_modules.
  mkdirSync(join(ROOT, 'dist/tmp'), { recursive: true })
  const dir = mkdtempSync(join(ROOT, 'dist/tmp/client-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG))
  writeFileSync(join(dir, 'hearth-api.ts'), types)

  writeFileSync(join(dir, 'client.ts'), PROGRAM(`{ content: '# From a generated client', tags: ['sdk'], content_format: 'latex' }`))
  const refused = await exec(process.execPath, [TSC, '-p', dir], { cwd: dir }).then(
    () => null,
    (err: { stdout: string }) => err.stdout,
  )
  t.match(refused, /latex/, 'a value outside an enum does not type-check')

  writeFileSync(join(dir, 'client.ts'), PROGRAM(`{ content: '# From a generated client', tags: ['sdk'], content_format: 'markdown' }`))
  const checked = await exec(process.execPath, [TSC, '-p', dir], { cwd: dir }).then(
    () => '',
    (err: { stdout: string }) => err.stdout,
  )
  t.equal(checked, '', 'the program type-checks against the generated types')

  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const run = await exec(process.execPath, [join(dir, 'out/client.js')], {
    env: { ...process.env, HEARTH_URL: `http://127.0.0.1:${port}`, HEARTH_TOKEN: o.token },
  })
  const result = JSON.parse(run.stdout) as { id: string; titles: string[]; total: number; tier: string }
  t.match(result.id, /^[0-9a-f-]{36}$/)
  t.same(result.titles, ['From a generated client'], 'the note it created is in the list it read')
  t.equal(result.total, 1)
  t.equal(result.tier, 'free')
})
