import { existsSync } from 'node:fs'
import * as nodeModule from 'node:module'
import { join, resolve } from 'node:path'
import { defaults } from '../config/defaults.js'

// Node keeps the code it compiled from the daemon's files in a cache folder and reuses it at the next start
// instead of compiling them again. NODE_COMPILE_CACHE, when set, names the folder (Node reads it itself);
// otherwise it lives in the data folder, where the daemon may write, once that folder exists (the first
// start creates it, with its own permissions, later). Node checks each entry against the file's content
// and its own version: a stale or damaged entry only costs a compile.
const dataDir = resolve(process.env.HEARTH_DATA_DIR || (defaults.HEARTH_DATA_DIR as string))
// Node 22.1 and later; on Node 20 the daemon compiles at each start, as before.
const { enableCompileCache } = nodeModule as { enableCompileCache?: (dir: string) => unknown }
if (!process.env.NODE_COMPILE_CACHE && existsSync(dataDir)) enableCompileCache?.(join(dataDir, 'compile-cache'))
const { runDaemon } = await import('./daemon.js')

/** Process entry of the unbundled build (`node dist/core/main.js`) and of the bundle (`hearthd.mjs`). */
void runDaemon()
