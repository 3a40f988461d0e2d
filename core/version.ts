import { readFileSync } from 'node:fs'

/** The package's version. The bundle (scripts/bundle.mjs) writes its own package.json and rewrites this URL to it. */
export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version
