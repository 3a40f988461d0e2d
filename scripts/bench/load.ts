import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Load from a separate process, as a client sees the server: wrk (C, one
 * thread, keep-alive) when installed, else autocannon's CLI in its own
 * process. The bench's own process only waits, so it takes no CPU from the
 * server under test.
 */
export interface Shot {
  rps: number
  p50: number
  p99: number
  errors: number
}

export interface ShotOptions {
  connections: number
  seconds: number
  headers?: Record<string, string>
  method?: 'GET' | 'POST'
  body?: string
  /** GET these paths in turn instead of the URL's (wrk only; autocannon keeps to the URL's). */
  paths?: string[]
  /** A wrk Lua script of its own (wrk only): its `request` function makes each request. */
  lua?: string
}

const run = (cmd: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(cmd, args, { maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd}: ${stderr || err.message}`)) : resolve(stdout),
    ),
  )

let wrkPresent: boolean | undefined
const hasWrk = async () =>
  (wrkPresent ??= await run('sh', ['-c', 'command -v wrk']).then(
    () => true,
    () => false,
  ))

export const loadGenerator = async () => ((await hasWrk()) ? 'wrk (1 thread)' : 'autocannon CLI')

const ms = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1)

function parseWrk(out: string): Shot {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out)
    return m ? Math.round(ms(m[1] as string, m[2] as string) * 100) / 100 : NaN
  }
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const socketErrors = sock ? sock.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0
  return { rps: Math.round(rps), p50: pct('50'), p99: pct('99'), errors: non2xx + socketErrors }
}

export async function shoot(url: string, opts: ShotOptions): Promise<Shot> {
  const headerArgs = (flag: string) => Object.entries(opts.headers ?? {}).flatMap(([k, v]) => [flag, `${k}: ${v}`])
  if (await hasWrk()) {
    const args = ['-t1', `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency', ...headerArgs('-H')]
    if (opts.lua !== undefined) {
      const script = join(tmpdir(), `hearth-bench-lua-${process.pid}.lua`)
      writeFileSync(script, opts.lua)
      args.push('-s', script)
    } else if (opts.method === 'POST') {
      const script = join(tmpdir(), `hearth-bench-post-${process.pid}.lua`)
      writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(opts.body ?? '')}\n`)
      args.push('-s', script)
    } else if (opts.paths?.length) {
      const script = join(tmpdir(), `hearth-bench-paths-${process.pid}.lua`)
      const list = opts.paths.map((p) => JSON.stringify(p)).join(',')
      writeFileSync(
        script,
        `local paths = {${list}}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n`,
      )
      args.push('-s', script)
    }
    return parseWrk(await run('wrk', [...args, url]))
  }
  if (opts.lua !== undefined || opts.paths?.length) throw new Error('this load needs wrk (apt-get install wrk)')
  const bin = new URL('../../../node_modules/autocannon/autocannon.js', import.meta.url).pathname
  const args = ['-j', '-c', String(opts.connections), '-d', String(opts.seconds), ...headerArgs('-H')]
  if (opts.method === 'POST') args.push('-m', 'POST', '-b', opts.body ?? '')
  const result = JSON.parse(await run(process.execPath, [bin, ...args, url])) as {
    requests: { average: number }
    latency: { p50: number; p99: number }
    errors: number
    non2xx: number
  }
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  }
}

/** Median of the runs' req/s (robust to one disturbed run on a shared machine). */
export const medianRps = (shots: Shot[]) => {
  const sorted = shots.map((s) => s.rps).sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}
