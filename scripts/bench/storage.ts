import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildApp } from '../../core/app.js'
import { runCommand } from '../../core/hal/command.js'
import { LSBLK_ARGS } from '../../drivers/storage/linux-basic/lsblk.js'
import { DF_ARGS } from '../../drivers/storage/linux-basic/volumes.js'

/**
 * Storage endpoints through a real listening app on this machine's real
 * tools: p99 (and p50) latency of each endpoint warm (cache filled) and cold
 * (every storage cache cleared by POST /detect-provider before each timed
 * request), beside the cost of running `lsblk --json` and `df` themselves.
 */
const WARM_RUNS = 100
const COLD_RUNS = 25

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number
}
const round = (ms: number) => Math.round(ms * 100) / 100

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await fn()
  return performance.now() - started
}

export async function benchStorage(): Promise<Record<string, number | string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-storage-'))
  const app = await buildApp({
    env: { HEARTH_DATA_DIR: dataDir, HEARTH_LOG_LEVEL: 'silent', HEARTH_DNS_PORT: '0', HEARTH_PLUGINS_DIR: '' },
  })
  const out: Record<string, number | string> = {}
  try {
    const address = await app.listen({ port: 0, host: '127.0.0.1' })
    const setup = await fetch(`${address}/api/v1/auth/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.test', password: 'bench password 1' }),
    })
    const token = ((await setup.json()) as { data: { accessToken: string } }).data.accessToken
    const headers = { authorization: `Bearer ${token}` }
    const get = async (path: string) => {
      const r = await fetch(`${address}/api/v1/hal/storage${path}`, { headers })
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`)
      return r.json() as Promise<{ data: unknown }>
    }
    const clearCaches = () => fetch(`${address}/api/v1/hal/storage/detect-provider`, { method: 'POST', headers })

    const disks = (await get('/disks')).data as Array<{ id: string }>
    const endpoints: Record<string, string> = {
      status: '/status',
      capabilities: '/capabilities',
      disks: '/disks',
      volumes: '/volumes',
      data_usage: '/data-usage',
      pools: '/pools',
      ...(disks[0] ? { smart: `/disks/${disks[0].id}/smart` } : {}),
    }
    out['storage.provider'] = ((await get('/capabilities')).data as { provider: string }).provider
    for (const [name, path] of Object.entries(endpoints)) {
      await get(path)
      const warm: number[] = []
      for (let i = 0; i < WARM_RUNS; i++) warm.push(await time(() => get(path)))
      const cold: number[] = []
      for (let i = 0; i < COLD_RUNS; i++) {
        await clearCaches()
        cold.push(await time(() => get(path)))
      }
      out[`storage.${name}.warm.p99_ms`] = round(percentile(warm, 99))
      out[`storage.${name}.cold.p99_ms`] = round(percentile(cold, 99))
      out[`storage.${name}.cold.p50_ms`] = round(percentile(cold, 50))
    }

    // The tools alone, in the same run: what a cold disks/volumes answer costs beyond them.
    for (const [name, cmd, args] of [
      ['lsblk', 'lsblk', LSBLK_ARGS],
      ['df', 'df', DF_ARGS],
    ] as const) {
      const samples: number[] = []
      for (let i = 0; i < COLD_RUNS; i++) samples.push(await time(() => runCommand(cmd, args)))
      out[`storage.tool.${name}.p50_ms`] = round(percentile(samples, 50))
      out[`storage.tool.${name}.p99_ms`] = round(percentile(samples, 99))
    }
    out['storage.disks.cold_over_lsblk.p50_ms'] = round(
      (out['storage.disks.cold.p50_ms'] as number) - (out['storage.tool.lsblk.p50_ms'] as number),
    )
    out['storage.volumes.cold_over_df.p50_ms'] = round(
      (out['storage.volumes.cold.p50_ms'] as number) - (out['storage.tool.df.p50_ms'] as number),
    )
  } finally {
    await app.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
  return out
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchStorage(), null, 2))
}
