import { admin, parseAdmin } from '../../../drivers/proxy/caddy/admin.js'
import type { Finding } from './finding.js'

/** Whether Caddy's admin API answers where HEARTH_CADDY_ADMIN says (the proxy driver's own client). */
export async function caddyFinding(adminUrl: string): Promise<Finding> {
  try {
    const res = await admin(parseAdmin(adminUrl), 'GET', '/config/', undefined, 3000)
    if (res.status === 200) return { check: 'caddy admin', status: 'ok', message: `${adminUrl} answers` }
    return {
      check: 'caddy admin',
      status: 'fail',
      message: `${adminUrl} answers ${res.status}`,
      fix: 'HEARTH_CADDY_ADMIN must name Caddy\'s admin endpoint (the "admin" option of its config)',
    }
  } catch (err) {
    return {
      check: 'caddy admin',
      status: 'warn',
      message: `${adminUrl} does not answer (${(err as Error).message}): the proxy keeps its routes and pushes them when Caddy is back`,
      fix: 'start Caddy (systemctl start caddy, or `caddy run --resume`), or set HEARTH_CADDY_ADMIN to where it listens',
    }
  }
}
