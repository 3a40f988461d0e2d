import { join } from 'node:path'

/** Where off-site protection keeps its files in the data folder. */
export function offsitePaths(dataDir: string) {
  const dir = join(dataDir, 'offsite')
  return {
    dir,
    /** The SSH key for SFTP repositories (`hearth offsite key` prints its public half); known_hosts beside it. */
    keyFile: join(dir, 'id_ed25519'),
    status: join(dir, 'status.json'),
    cacheDir: join(dataDir, 'cache', 'restic'),
    /** The folder a snapshot is taken of (inside the data folder: its name is the path in the snapshot). */
    copyName: 'offsite-copy',
    photosName: 'photos',
  }
}
