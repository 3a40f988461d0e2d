// First: it sets how the heap grows while the rest of the start-up allocates.
import './startup-heap.js'
import { runDaemon } from './daemon.js'

/** Process entry of the unbundled build (`node dist/core/main.js`); the bundle's entry calls runDaemon with its static plugin list. */
void runDaemon()
