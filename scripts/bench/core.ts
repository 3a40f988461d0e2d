/**
 * Foundation bench: GET /api/v1/api-keys/mine authenticated by API key against
 * a bare Fastify route answering the same JSON, loaded the same way in the
 * same run; start-to-healthy time; idle RSS.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { load, ownerWithKey, ROOT, rssMb, startDaemon, startScript } from './harness.js'

export async function benchCore(): Promise<Record<string, number | string>> {
  const startups: number[] = []
  for (let i = 0; i < 5; i++) {
    const d = await startDaemon()
    startups.push(d.startupMs)
    await d.stop()
  }
  startups.sort((a, b) => a - b)

  const daemon = await startDaemon()
  await new Promise((r) => setTimeout(r, 2000))
  const idleRss = await rssMb(daemon.pid)
  const { key } = await ownerWithKey(daemon.url)
  const headers = { authorization: `Bearer ${key}` }
  const sample = await (await fetch(`${daemon.url}/api/v1/api-keys/mine`, { headers })).text()
  const bare = await startScript(join(ROOT, 'dist/scripts/bench/bare-server.js'), [sample])

  await load(`${daemon.url}/api/v1/api-keys/mine`, { headers, seconds: 2 }) // warm-up
  await load(`${bare.url}/bare`, { seconds: 2 })
  const hearth = await load(`${daemon.url}/api/v1/api-keys/mine`, { headers })
  const baseline = await load(`${bare.url}/bare`)
  bare.stop()
  await daemon.stop()

  return {
    'api-keys/mine req/s': hearth.rps,
    'api-keys/mine p99 ms': hearth.p99,
    'api-keys/mine errors': hearth.errors,
    'bare fastify req/s': baseline.rps,
    'bare fastify p99 ms': baseline.p99,
    'ratio req/s (aim >= 0.7)': Math.round((hearth.rps / baseline.rps) * 100) / 100,
    'start to healthy ms, median of 5 (aim < 400)': Math.round(startups[2] as number),
    'idle RSS MB (aim < 70)': idleRss,
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchCore())
}
