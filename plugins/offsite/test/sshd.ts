import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { freePort, tempDir } from '../../../test/cli-process.js'

export const SSHD = '/usr/sbin/sshd'

export interface Sshd {
  port: number
  user: string
  /** A folder the SSH user owns, for the repository. */
  home: string
  authorize(publicKey: string): void
}

/** The unprivileged account sshd runs as when the test is root: nobody. */
function nobody(): { uid: number; gid: number; name: string } {
  const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim()))
  return { uid: uid as number, gid: gid as number, name: 'nobody' }
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => (s.destroy(), resolve(true)))
    s.once('error', () => resolve(false))
  })
}

/**
 * Debian's OpenSSH server on a loopback port with its own host key, configuration and authorized
 * keys file, serving SFTP only. Run as root, the test starts it as `nobody` (an sshd that is not root
 * can only log in its own user, so the SFTP user is nobody); otherwise as the test's own user.
 * UsePAM stays on: with it off, sshd refuses accounts whose shadow password is `*` (nobody's) as locked.
 */
export async function startSshd(t: Test): Promise<Sshd> {
  const dir = tempDir(t, 'hearth-sshd-')
  chmodSync(dir, 0o755)
  const as = process.getuid?.() === 0 ? nobody() : null
  const user = as?.name ?? userInfo().username
  const home = join(dir, 'home')
  mkdirSync(home, { mode: 0o700 })
  const hostKey = join(dir, 'host_ed25519')
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey])
  const authorized = join(dir, 'authorized_keys')
  writeFileSync(authorized, '', { mode: 0o644 })
  const port = await freePort()
  const config = join(dir, 'sshd_config')
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      `AllowUsers ${user}`,
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM yes',
      'PrintMotd no',
      'Subsystem sftp internal-sftp',
      'ForceCommand internal-sftp',
      'AllowTcpForwarding no',
      'X11Forwarding no',
      '',
    ].join('\n'),
  )
  if (as) for (const f of [dir, home, hostKey, authorized, config]) chownSync(f, as.uid, as.gid)
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(as ? { uid: as.uid, gid: as.gid } : {}),
  })
  let log = ''
  child.stderr?.on('data', (c) => (log = (log + c).slice(-4000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  })
  for (let i = 0; i < 100 && !(await listening(port)); i++) {
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 100))
  }
  if (!(await listening(port))) throw new Error(`sshd did not start: ${log}`)
  t.comment(`sshd on 127.0.0.1:${port} as ${user}`)
  return { port, user, home, authorize: (key) => appendFileSync(authorized, `${key}\n`) }
}

export const haveSshd = () => existsSync(SSHD)
