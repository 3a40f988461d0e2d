/**
 * DAV bench: one user with 5,000 contacts and 500 weekly events, in an app built in this
 * process (app.inject: the full route pipeline, no socket), timed per request:
 *   - sync-collection of the address book from no token (5,000 objects, ETags)
 *   - sync-collection after 10 changes made through the JSON API (the changes only)
 *   - calendar-query over a year (recurrences expanded, 500 series)
 * Figures are p50/p99 in milliseconds.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../../core/app.js'

const CONTACTS = 5_000
const EVENTS = 500

const pct = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return Number((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(2))
}

export async function benchDav(): Promise<Record<string, number | string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-dav-'))
  const app = await buildApp({
    env: {
      HEARTH_DATA_DIR: dataDir,
      HEARTH_LOG_LEVEL: 'silent',
      HEARTH_DNS_PORT: '0',
      HEARTH_CADDY_ADMIN: 'http://127.0.0.1:1',
      HEARTH_PLUGINS_DIR: '',
      HEARTH_RATE_LIMIT: '100000000',
    },
  })
  try {
    const setup = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/setup',
      payload: { email: 'bench@example.test', password: 'correct horse battery' },
    })
    const token = setup.json().data.accessToken as string
    const bearer = { authorization: `Bearer ${token}` }
    const key = (await app.inject({ method: 'POST', url: '/api/v1/admin/api-keys', headers: bearer, payload: { scope: 'dav' } })).json()
      .data.key
    const basic = {
      authorization: `Basic ${Buffer.from(`bench@example.test:${key}`).toString('base64')}`,
      'content-type': 'application/xml',
    }

    const ids: string[] = []
    for (let i = 0; i < CONTACTS; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/contacts',
        headers: bearer,
        payload: { first_name: `First${i}`, last_name: `Last${i}`, emails: [{ address: `p${i}@example.test` }] },
      })
      ids.push(res.json().data.id)
    }
    for (let i = 0; i < EVENTS; i++) {
      const day = String(1 + (i % 28)).padStart(2, '0')
      await app.inject({
        method: 'POST',
        url: '/api/v1/events',
        headers: bearer,
        payload: {
          title: `Weekly ${i}`,
          start_at: `2026-01-${day}T${String(8 + (i % 10)).padStart(2, '0')}:00:00Z`,
          recurrence: { freq: 'WEEKLY' },
        },
      })
    }
    const sync = (token = '') =>
      `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`
    const report = async (url: string, body: string) => {
      const t0 = performance.now()
      const res = await app.inject({ method: 'REPORT', url, headers: basic, payload: body })
      const ms = performance.now() - t0
      if (res.statusCode !== 207) throw new Error(`REPORT ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`)
      return { ms, body: res.body }
    }

    const initial: number[] = []
    let last = ''
    let count = 0
    for (let run = 0; run < 20; run++) {
      const r = await report('/dav/addressbooks/contacts/', sync())
      initial.push(r.ms)
      last = /<d:sync-token>([^<]*)<\/d:sync-token><\/d:multistatus>/.exec(r.body)?.[1] ?? ''
      count = r.body.split('<d:response>').length - 1
    }
    const delta: number[] = []
    let changed = 0
    for (let run = 0; run < 30; run++) {
      for (let c = 0; c < 10; c++) {
        await app.inject({
          method: 'PATCH',
          url: `/api/v1/contacts/${ids[(run * 10 + c) % ids.length]}`,
          headers: bearer,
          payload: { job_title: `Job ${run}` },
        })
      }
      const r = await report('/dav/addressbooks/contacts/', sync(last))
      delta.push(r.ms)
      changed = r.body.split('<d:response>').length - 1
      last = /<d:sync-token>([^<]*)<\/d:sync-token><\/d:multistatus>/.exec(r.body)?.[1] ?? ''
    }
    const query = `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20260101T000000Z" end="20270101T000000Z"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`
    const year: number[] = []
    let matched = 0
    for (let run = 0; run < 30; run++) {
      const r = await report('/dav/calendars/default/', query)
      year.push(r.ms)
      matched = r.body.split('<d:response>').length - 1
    }
    return {
      'sync-collection initial (5,000 contacts) p50 ms': pct(initial, 50),
      'sync-collection initial p99 ms': pct(initial, 99),
      'objects in the initial answer': count,
      'sync-collection after 10 changes p50 ms': pct(delta, 50),
      'sync-collection after 10 changes p99 ms': pct(delta, 99),
      'objects in a delta answer': changed,
      'calendar-query over a year (500 weekly series) p50 ms': pct(year, 50),
      'calendar-query over a year p99 ms': pct(year, 99),
      'series matched': matched,
    }
  } finally {
    await app.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
