import { type BuildOptions, buildApp } from './app.js'
import { ConfigError } from './config.js'
import { pruneRestoredAside, removeDaemonLock, writeDaemonLock } from './daemon-state.js'

/** Builds, listens, and drains on SIGTERM/SIGINT (in-flight requests finish, database closed). */
export async function runDaemon(options: BuildOptions = {}): Promise<void> {
  let app: Awaited<ReturnType<typeof buildApp>>
  try {
    app = await buildApp(options)
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const problem of err.problems) console.error(`hearth: configuration error: ${problem}`)
      process.exit(78)
    }
    console.error(`hearth: failed to start: ${(err as Error).stack ?? err}`)
    process.exit(1)
  }
  const { port, host } = app.hearth.config
  try {
    await app.listen({ port, host })
  } catch (err) {
    app.log.fatal(`cannot listen on ${host}:${port}: ${(err as Error).message} (set HEARTH_PORT or HEARTH_HOST)`)
    await app.close()
    process.exit(1)
  }
  const { dataDir, restoreKeep } = app.hearth.config
  // Started on a restored data folder: the previous ones kept aside for a roll-back can go now.
  for (const dir of pruneRestoredAside(dataDir, restoreKeep)) app.log.info({ dir }, 'removed the data folder kept aside by restore')
  // The CLI reads this to reach the API instead of the database, and restore refuses while it exists.
  // Written last: whoever waits for it finds the start-up housekeeping above done.
  const address = app.server.address()
  writeDaemonLock(dataDir, {
    pid: process.pid,
    port: typeof address === 'object' && address ? address.port : port,
    host,
    version: app.hearth.version,
    started_at: new Date().toISOString(),
  })
  process.on('exit', () => removeDaemonLock(dataDir))

  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      app.log.error('shutdown took longer than 15 s; exiting')
      process.exit(1)
    }, 15_000)
    force.unref()
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'error while closing')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}
