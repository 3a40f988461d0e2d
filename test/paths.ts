import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

/**
 * Tests run compiled from dist/, while fixtures stay in the source tree
 * beside the tests that read them: maps a test module's URL back to its
 * source folder and joins `rel`.
 */
export function sourcePath(moduleUrl: string, rel: string): string {
  const dir = dirname(fileURLToPath(moduleUrl)).replace(/([\\/])dist([\\/])/, '$1')
  return join(dir, rel)
}
