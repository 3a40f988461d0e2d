import { setFlagsFromString } from 'node:v8'

/**
 * The young generation during start-up. V8 doubles its semi-spaces whenever a scavenge finds many
 * survivors, and loading the code, plugins and routes is exactly that: they reach 8 MB each by the time
 * the daemon listens and stay committed until V8's memory reducer runs (about 15 s of idle later), about
 * 11 MB of idle RSS. Holding the growth factor at 1 while starting keeps them small; `startupDone` gives
 * V8 its default growth back once the server listens, so under load they grow as they always did.
 * Imported first by the entry (core/main.ts) so it runs before the bulk of the start-up allocates.
 */
setFlagsFromString('--semi-space-growth-factor=1')

/** V8's default (src/flags/flag-definitions.h: semi_space_growth_factor = 2). */
export function startupDone(): void {
  setFlagsFromString('--semi-space-growth-factor=2')
}
