import { runDaemon } from './daemon.js'

/** Process entry of the unbundled build (`node dist/core/main.js`); the bundle's entry calls runDaemon with its static plugin list. */
void runDaemon()
