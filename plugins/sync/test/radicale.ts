import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A real Radicale (Debian `radicale`) on a free loopback port, with a temporary
 * storage folder and an htpasswd file (plain passwords): the CardDAV/CalDAV server
 * the connectors pull from. Killed by PID in teardown.
 */
export interface Radicale {
  base: string
  user: string
  password: string
  request(method: string, path: string, body?: string, headers?: Record<string, string>): Promise<{ status: number; text: string }>
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

export async function startRadicale(
  t: { teardown(fn: () => unknown): void },
  user = 'alice',
  password = 'radicale-pass-7f3a9',
): Promise<Radicale> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-radicale-'))
  writeFileSync(join(dir, 'users'), `${user}:${password}\n`)
  const port = await freePort()
  const child = spawn(
    'radicale',
    [
      '--server-hosts',
      `127.0.0.1:${port}`,
      '--storage-filesystem-folder',
      join(dir, 'collections'),
      '--auth-type',
      'htpasswd',
      '--auth-htpasswd-filename',
      join(dir, 'users'),
      '--auth-htpasswd-encryption',
      'plain',
      '--logging-level',
      'warning',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)))
  t.teardown(() => {
    if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  })
  const base = `http://127.0.0.1:${port}`
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
  const request = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(new URL(path, base), { method, body, headers: { authorization, ...headers } })
    return { status: res.status, text: await res.text() }
  }
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`radicale exited: ${stderr}`)
    try {
      await request('OPTIONS', '/')
      break
    } catch {
      if (i > 100) throw new Error(`radicale did not start: ${stderr}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return { base, user, password, request }
}

/** Makes an address book (extended MKCOL, RFC 5689) and a calendar named Family (MKCALENDAR) under the user's home. */
export async function makeCollections(r: Radicale, book = 'contacts', calendar = 'calendar') {
  const mkcol = await r.request(
    'MKCOL',
    `/${r.user}/${book}/`,
    '<?xml version="1.0"?><mkcol xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav"><set><prop><resourcetype><collection/><C:addressbook/></resourcetype></prop></set></mkcol>',
    { 'content-type': 'application/xml' },
  )
  const mkcal = await r.request(
    'MKCALENDAR',
    `/${r.user}/${calendar}/`,
    '<?xml version="1.0"?><C:mkcalendar xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><set><prop><displayname>Family</displayname></prop></set></C:mkcalendar>',
    { 'content-type': 'application/xml' },
  )
  if (mkcol.status !== 201 || mkcal.status !== 201) throw new Error(`collections: ${mkcol.status} ${mkcal.status}`)
}

export const vcard = (uid: string, name: string, email: string) =>
  [
    'BEGIN:VCARD',
    'VERSION:4.0',
    `UID:${uid}`,
    `FN:${name}`,
    `N:${name.split(' ').reverse().join(';')};;;`,
    `EMAIL;TYPE=work:${email}`,
    'END:VCARD',
    '',
  ].join('\r\n')

export const vcalendar = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Hearth test//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n')
