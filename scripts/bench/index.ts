/**
 * `npm run bench`: every benchmark, each printing its figures beside a
 * baseline measured in the same run. Select some with arguments:
 * `npm run bench -- core dns`.
 */
type Suite = () => Promise<Record<string, number | string>>
const suites: Record<string, string> = {
  core: 'benchCore',
  records: 'benchRecords',
  dns: 'benchDns',
  'dns-writes': 'benchDnsWrites',
  proxy: 'benchProxy',
  storage: 'benchStorage',
  mcp: 'benchMcp',
  dav: 'benchDav',
  semantic: 'benchSemantic',
  perf: 'benchPerf',
  start: 'benchStart',
  offsite: 'benchOffsite',
  page: 'benchPage',
  attacks: 'benchAttacks',
  sharing: 'benchSharing',
}

const wanted = process.argv.slice(2)
for (const [name, exported] of Object.entries(suites)) {
  if (wanted.length && !wanted.includes(name)) continue
  console.log(`\n== ${name} ==`)
  try {
    const run = (await import(`./${name}.js`))[exported] as Suite
    console.table(await run())
  } catch (err) {
    console.log(`${name} bench failed: ${(err as Error).message}`)
  }
}
