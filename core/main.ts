import { holdCompilersDuringStart } from './compiler-hold.js'

// Before the daemon's modules are evaluated: their one-time code is most of what V8's compilers would tier up
// during the start (core/compiler-hold.ts). The daemon itself is imported after, on purpose.
holdCompilersDuringStart()
const { runDaemon } = await import('./daemon.js')

/** Process entry of the unbundled build (`node dist/core/main.js`) and of the bundle (`hearthd.mjs`). */
void runDaemon()
