import { readFileSync } from 'node:fs'

/** The package's version (dist/scripts/cli/ → the package root). */
export const VERSION: string = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version
