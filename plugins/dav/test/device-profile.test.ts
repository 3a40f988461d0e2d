import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { hasTool, startDaemon } from './daemon.js'

/**
 * The account an Apple configuration profile holds, used as a device would: read with python3's
 * plistlib, its CalDAV and CardDAV settings given to vdirsyncer (Debian's package), which discovers
 * the collections from the principal URL and syncs an event and a contact down.
 */
const skip = hasTool('vdirsyncer') ? false : 'vdirsyncer is not installed (apt install vdirsyncer; .ci/run installs it)'

type Payload = Record<string, string | number | boolean> & { PayloadType: string }
const readPlist = (text: string): { PayloadContent: Payload[] } =>
  JSON.parse(
    execFileSync('python3', ['-c', 'import sys, json, plistlib\nprint(json.dumps(plistlib.loads(sys.stdin.buffer.read())))'], {
      input: text,
    }).toString(),
  )

t.test("vdirsyncer syncs with the account from the profile's CalDAV and CardDAV payloads", { skip }, async (t) => {
  const d = await startDaemon(t)
  const res = await fetch(`${d.base}/api/v1/devices/apple-profile`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'vdirsyncer as a phone' }),
  })
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-type'), 'application/x-apple-aspen-config')
  const payloads = readPlist(await res.text()).PayloadContent
  const cal = payloads.find((p) => p.PayloadType === 'com.apple.caldav.account') as Payload
  const card = payloads.find((p) => p.PayloadType === 'com.apple.carddav.account') as Payload
  t.not(cal.CalDAVPassword, d.key, 'a new app password, not the bench key')

  await d.json('POST', '/api/v1/events', { title: 'Dentist', start_at: '2026-03-02T09:00:00Z' })
  await d.json('POST', '/api/v1/contacts', { display_name: 'Profile Person' })

  const local = join(d.dir, 'phone')
  const storage = (kind: 'caldav' | 'carddav', p: Payload, prefix: 'CalDAV' | 'CardDAV') =>
    `type = "${kind}"\nurl = "${p[`${prefix}PrincipalURL`]}"\nusername = "${p[`${prefix}Username`]}"\npassword = "${p[`${prefix}Password`]}"\n`
  const config = join(d.dir, 'phone.conf')
  writeFileSync(
    config,
    `[general]
status_path = "${join(d.dir, 'phone-status')}/"

[pair calendars]
a = "calendars_local"
b = "calendars_remote"
collections = ["from b"]

[storage calendars_local]
type = "filesystem"
path = "${local}/calendars/"
fileext = ".ics"

[storage calendars_remote]
${storage('caldav', cal, 'CalDAV')}
[pair contacts]
a = "contacts_local"
b = "contacts_remote"
collections = ["from b"]

[storage contacts_local]
type = "filesystem"
path = "${local}/contacts/"
fileext = ".vcf"

[storage contacts_remote]
${storage('carddav', card, 'CardDAV')}`,
  )
  mkdirSync(join(local, 'calendars'), { recursive: true })
  mkdirSync(join(local, 'contacts'), { recursive: true })
  for (const args of [['discover'], ['sync']]) {
    const r = spawnSync('vdirsyncer', ['-c', config, ...args], { input: 'y\ny\ny\ny\n', encoding: 'utf8', timeout: 60_000 })
    t.equal(r.status, 0, `vdirsyncer ${args.join(' ')}: ${r.stderr.slice(-2000)}`)
  }
  const read = (dir: string) => readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'))
  t.ok(
    read(join(local, 'calendars', 'default')).some((text) => text.includes('SUMMARY:Dentist')),
    'the event reached the device',
  )
  t.ok(
    read(join(local, 'contacts', 'contacts')).some((text) => text.includes('FN:Profile Person')),
    'the contact too',
  )
})
