import { compileCheck } from '../../../core/validation.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { HearthEvent } from '../../../core/events.js'
import { createRecordsService } from '../service.js'
import { bench, recordEventsOf } from './records-app.js'

const DAY = 86_400_000

const tempDir = (t: { teardown(fn: () => void): void }) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-trash-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The purge runs hourly and once at start: restarting on the same data folder with a later clock runs it. */
t.test('at start, records soft-deleted longer than 30 days are purged; newer trash and active records stay', async (t) => {
  const dataDir = tempDir(t)
  const first = await bench(t, { dataDir })
  const { call, clock } = first
  const old = {
    notes: (await call('POST', '/notes', { content: 'old' })).body.data.id,
    contacts: (await call('POST', '/contacts', { display_name: 'Old' })).body.data.id,
    events: (await call('POST', '/events', { title: 'Old', start_at: '2026-11-01T10:00:00Z' })).body.data.id,
  }
  for (const [path, id] of Object.entries(old)) await call('DELETE', `/${path}/${id}`)
  clock.advance(10 * DAY)
  const recent = (await call('POST', '/notes', { content: 'recent' })).body.data.id
  await call('DELETE', `/notes/${recent}`)
  const kept = (await call('POST', '/notes', { content: 'kept' })).body.data.id
  await first.app.close()

  const later = await bench(t, { dataDir, existing: true, at: clock.ms + 21 * DAY })
  for (const [path, id] of Object.entries(old)) {
    t.equal((await later.call('GET', `/${path}/${id}?include_deleted=true`)).status, 404, `${path}: 31 days in the trash, purged`)
  }
  t.equal((await later.call('GET', `/notes/${recent}?include_deleted=true`)).status, 200, '21 days in the trash, kept')
  t.equal((await later.call('GET', `/notes/${kept}`)).status, 200, 'active records untouched')
})

t.test('HEARTH_TRASH_RETENTION_DAYS sets the retention; a bad value stops the start', async (t) => {
  const dataDir = tempDir(t)
  const env = { HEARTH_TRASH_RETENTION_DAYS: '2' }
  const first = await bench(t, { dataDir, env })
  const note = (await first.call('POST', '/notes', { content: 'short-lived' })).body.data
  await first.call('DELETE', `/notes/${note.id}`)
  await first.app.close()
  const later = await bench(t, { dataDir, env, existing: true, at: first.clock.ms + 3 * DAY })
  t.same((await later.call('GET', '/notes?only_deleted=true')).body.data, [], 'purged after 2 days')
  await t.rejects(bench(t, { env: { HEARTH_TRASH_RETENTION_DAYS: '0' } }), /HEARTH_TRASH_RETENTION_DAYS/)
})

t.test('purgeTrash emits <x>.deleted { id, owner_id } for each purged record, to its owner', async (t) => {
  const { app, call, clock } = await bench(t)
  const note = (await call('POST', '/notes', { content: 'x' })).body.data
  const contact = (await call('POST', '/contacts', { display_name: 'y' })).body.data
  await call('DELETE', `/notes/${note.id}`)
  await call('DELETE', `/contacts/${contact.id}`)
  const seen: HearthEvent[] = []
  const service = createRecordsService({
    validator: compileCheck,
    db: app.hearth.db,
    events: { emit: (type, input) => (seen.push({ type, at: '', ...input }), { type, at: '', ...input }) as never },
    now: () => clock.ms + 30 * DAY + 1,
  })
  t.equal(service.purgeTrash(31), 0, 'not yet older than 31 days')
  t.equal(service.purgeTrash(30), 2)
  t.same(recordEventsOf(seen), [
    ['note.deleted', note.id],
    ['contact.deleted', contact.id],
  ])
  t.same(
    seen.map((e) => e.data),
    [
      { id: note.id, owner_id: note.owner_id },
      { id: contact.id, owner_id: contact.owner_id },
    ],
  )
  t.ok(seen.every((e) => e.userId === seen[0]?.userId && e.userId))
})
