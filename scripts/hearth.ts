#!/usr/bin/env node
/**
 * The admin CLI. Works on the data folder directly (HEARTH_DATA_DIR), beside
 * a running daemon: SQLite's WAL and busy timeout let both write.
 *
 *   hearth users reset-token EMAIL   print a one-hour password-reset token
 *   hearth users list                list users
 *   hearth backup FILE               online backup of the database
 *   hearth migrate                   apply the core migrations (plugins migrate when the daemon starts)
 *   hearth mcp                       MCP over stdio, bridged to the daemon (HEARTH_API_KEY, HEARTH_URL; docs/agents.md)
 */
import { resolve } from 'node:path'
import { createAuthService } from '../core/auth/service.js'
import { createTokens } from '../core/auth/tokens.js'
import { createUsers } from '../core/auth/users.js'
import { collectSources, loadCoreConfig } from '../core/config.js'
import { migrate, readMigrations } from '../core/db/migrate.js'
import { backupDatabase, databasePath, openDatabase } from '../core/db/sqlite.js'
import { createEventBus } from '../core/events.js'
import { createLimiter } from '../core/rate-limit.js'
import { ensureSecrets } from '../core/secrets.js'

const USAGE = 'usage: hearth users reset-token EMAIL | hearth users list | hearth backup FILE | hearth migrate | hearth mcp'

async function main(argv: string[]): Promise<number> {
  // A client of the daemon's HTTP API, possibly on another machine: no config, no data folder.
  if (argv[0] === 'mcp') {
    const { runMcpStdio } = await import('../plugins/mcp/stdio.js')
    return runMcpStdio({ env: process.env, input: process.stdin, output: process.stdout, errors: process.stderr })
  }
  const config = loadCoreConfig(ensureSecrets(collectSources(process.env)))
  const db = openDatabase(databasePath(config.dataDir))
  try {
    migrate(db, 'core', readMigrations(new URL('../core/auth/migrations/', import.meta.url)))
    const users = createUsers(db, config.tier)
    const [cmd, sub, arg] = argv
    if (cmd === 'users' && sub === 'reset-token' && arg) {
      const silent = { info() {}, warn() {}, error() {} } as never
      const service = createAuthService({
        db,
        users,
        tokens: createTokens(db, config.jwtSecret),
        log: silent,
        events: createEventBus(() => {}),
        loginFailures: createLimiter({ max: 1, windowMs: 1 }),
        deliverReset: async () => false,
      })
      const reset = service.createResetToken(arg)
      if (!reset) {
        console.error(`hearth: no active user with email ${arg}`)
        return 1
      }
      console.log(`${reset.token}\n(valid until ${reset.expires_at}; POST /api/v1/auth/reset-password { token, new_password })`)
      return 0
    }
    if (cmd === 'users' && sub === 'list') {
      for (const u of users.list()) console.log([u.id, u.email, u.role, users.tierOf(u), u.disabled ? 'disabled' : 'active'].join('\t'))
      return 0
    }
    if (cmd === 'backup' && sub) {
      const { pages } = await backupDatabase(db, resolve(sub))
      console.log(`backed up ${pages} pages to ${resolve(sub)}`)
      return 0
    }
    if (cmd === 'migrate') {
      console.log('core schema is up to date')
      return 0
    }
    console.error(USAGE)
    return 2
  } finally {
    db.close()
  }
}

process.exitCode = await main(process.argv.slice(2))
