import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type DriverContext, defineDriver, HttpError, ToolMissingError } from '../../../core/plugin-api.js'
import type { VpnDriver, VpnStatus } from '../driver.js'
import { authUrl, type TailscaleStatus, toVpnStatus } from './status.js'

/**
 * Tailscale through its CLI (`settings.bin`, default `tailscale` on PATH), argument arrays only. A
 * missing CLI is a status of `installed: false` and a 503 for every action, never a 500.
 */
const NOT_INSTALLED: VpnStatus = { installed: false, running: false, logged_in: false, hostname: null, ip: null, tailnet: null }
const LOGIN_URL_WAIT_MS = 15_000
/** A login left waiting for the user is ended after this long. */
const LOGIN_LIFETIME_MS = 10 * 60_000

function unavailable(message: string): HttpError {
  return new HttpError('SERVICE_UNAVAILABLE', message, { tool: 'tailscale' })
}

function createTailscale(ctx: DriverContext): VpnDriver {
  const bin = String(ctx.settings.bin ?? 'tailscale')
  const installCommand = (ctx.settings.installCommand as string[] | undefined) ?? []
  let pendingLogin: ChildProcess | null = null

  const cli = async (args: string[], timeoutMs = 15_000) => {
    try {
      const res = await ctx.run(bin, args, { timeoutMs, env: { LC_ALL: 'C' } })
      if (res.code === null) throw unavailable(`tailscale ${args[0]} did not finish within ${timeoutMs} ms`)
      return res
    } catch (err) {
      if (err instanceof ToolMissingError)
        throw unavailable('the Tailscale CLI is not installed (POST /hal/network/vpn/install, or set HEARTH_TAILSCALE_BIN)')
      throw err
    }
  }
  const ok = async (args: string[]) => {
    const res = await cli(args)
    if (res.code !== 0) throw unavailable(`tailscale ${args[0]} failed: ${res.stderr.trim().split('\n')[0] || `exit ${res.code}`}`)
    return res.stdout
  }
  const rawStatus = async (): Promise<TailscaleStatus | null> => {
    const res = await cli(['status', '--json'])
    // Exit 1 with "failed to connect to local tailscaled" when the daemon does not run.
    if (res.code !== 0) return null
    try {
      return JSON.parse(res.stdout) as TailscaleStatus
    } catch {
      throw unavailable('tailscale status --json answered something other than JSON')
    }
  }

  return {
    async status() {
      try {
        const status = await rawStatus()
        return status ? toVpnStatus(status) : { ...NOT_INSTALLED, installed: true }
      } catch (err) {
        if (err instanceof HttpError && /not installed/.test(err.message)) return NOT_INSTALLED
        throw err
      }
    },

    async install() {
      const [cmd, ...args] = installCommand
      if (!cmd) throw unavailable('no install command is configured (HEARTH_TAILSCALE_INSTALL_CMD)')
      let res
      try {
        res = await ctx.run(cmd, args, { timeoutMs: 10 * 60_000 })
      } catch (err) {
        if (err instanceof ToolMissingError) throw unavailable(`the install command ${cmd} is not there`)
        throw err
      }
      if (res.code !== 0) throw unavailable(`installing Tailscale failed: ${res.stderr.trim().split('\n').pop() || `exit ${res.code}`}`)
    },

    login() {
      pendingLogin?.kill()
      return new Promise((resolve, reject) => {
        const child = spawn(bin, ['login'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } })
        pendingLogin = child
        let output = ''
        const settle = (fn: () => void) => {
          clearTimeout(wait)
          fn()
        }
        const wait = setTimeout(
          () => settle(() => reject(unavailable(`tailscale login showed no URL within ${LOGIN_URL_WAIT_MS} ms`))),
          LOGIN_URL_WAIT_MS,
        )
        const lifetime = setTimeout(() => child.kill(), LOGIN_LIFETIME_MS)
        lifetime.unref()
        const read = (chunk: Buffer) => {
          output = (output + chunk.toString()).slice(-8192)
          const url = authUrl(output)
          if (url) settle(() => resolve({ auth_url: url }))
        }
        child.stdout?.on('data', read)
        child.stderr?.on('data', read)
        child.on('error', (err: NodeJS.ErrnoException) =>
          settle(() => reject(err.code === 'ENOENT' ? unavailable('the Tailscale CLI is not installed') : err)),
        )
        child.on('exit', (code) => {
          clearTimeout(lifetime)
          if (pendingLogin === child) pendingLogin = null
          // Exit 0 without a URL: the node was already logged in.
          settle(() =>
            code === 0
              ? resolve({ auth_url: authUrl(output) })
              : reject(unavailable(`tailscale login failed: ${output.trim().split('\n').pop() ?? `exit ${code}`}`)),
          )
        })
      })
    },

    async logout() {
      await ok(['logout'])
    },

    async generateCert(domain) {
      const name = domain ?? (await rawStatus())?.Self?.DNSName?.replace(/\.$/, '') ?? null
      if (!name) throw new HttpError('UNPROCESSABLE', 'this node has no Tailscale DNS name yet: log in first, or name the domain')
      const dir = join(ctx.dataDir, 'tailscale')
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      const cert = join(dir, `${name}.crt`)
      const key = join(dir, `${name}.key`)
      await ok(['cert', '--cert-file', cert, '--key-file', key, name])
      return { domain: name, cert_path: cert, key_path: key }
    },

    dispose() {
      pendingLogin?.kill()
    },
  }
}

export default defineDriver<VpnDriver>({
  manifest: {
    name: 'tailscale',
    kind: 'vpn',
    priority: 10,
    capabilities: ['canLogin', 'canGenerateCert'],
    description: 'Tailscale through its CLI',
  },
  // Always supported: without the CLI the status says installed: false and the install action can fetch it.
  probe: async () => ({ supported: true }),
  create: async (ctx) => createTailscale(ctx),
})
