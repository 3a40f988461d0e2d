import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { addUser, apiKey, auth, owner, type TestApp, type TestContext } from '../../../test/helper.js'
import { MAX_PENDING } from '../journal.js'
import { listening, type Message, refusedStatus, TestClient } from './ws-client.js'

/**
 * Resumable realtime: every event message carries `seq`; `?since=<seq>` replays the
 * caller's journaled events after it (own user, subscribe filter and scope applied), then streams;
 * a cursor the journal no longer covers gets `resync_required` first. The journal lives in SQLite,
 * so a daemon restart on the same data folder keeps resumption working.
 */
const createNote = async (app: TestApp, token: string, content: string) => {
  const res = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: auth(token), payload: { content } })
  if (res.statusCode !== 201) throw new Error(`POST /notes → ${res.statusCode} ${res.body}`)
  return res.json().data as { id: string; etag: string }
}

/** The seq a fresh connection's `ready` announces: where a client that loaded everything would start. */
async function cursorNow(url: string, token: string): Promise<number> {
  const probe = await TestClient.open(url, auth(token))
  probe.close()
  return probe.of('ready')[0]?.data.seq as number
}

type Event = Message & { seq: number }
const events = (c: TestClient) => c.messages.filter((m): m is Event => m.seq !== undefined)
// The records' events alone: the storage driver's probe after listen announces driver.changed whenever it ends.
const noteEvents = (c: TestClient) => events(c).filter((m) => m.type.startsWith('note.'))

t.test('every event message carries an increasing seq; ready names the current one', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  // Notes' events only: the storage driver's probe after listen announces driver.changed whenever it ends.
  const client = await TestClient.open(`${url}?subscribe=note.*`, auth(o.token))
  const ready = client.of('ready')[0]
  t.type(ready?.data.seq, 'number', 'ready carries the last seq handed out')
  t.equal(ready?.data.replay, 0)
  for (const n of [1, 2, 3]) await createNote(app, o.token, `note ${n}`)
  await client.next((m) => m.type === 'note.created' && m.data.content === 'note 3')
  const seqs = events(client).map((m) => m.seq)
  t.equal(seqs.length, 3)
  t.ok(
    seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number)),
    'strictly increasing',
  )
  t.ok((seqs[0] as number) > ready?.data.seq, 'after the cursor ready announced')
  client.close()
})

t.test('resume after a disconnect: the missed events in order, then live ones; nothing twice', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  const first = await TestClient.open(`${url}?subscribe=note.*`, auth(o.token))
  const a = await createNote(app, o.token, 'seen')
  const seen = (await first.next((m) => m.type === 'note.created' && m.id === a.id)) as Event
  first.close()
  await first.closed()

  const missed = [await createNote(app, o.token, 'missed 1'), await createNote(app, o.token, 'missed 2')]
  const patched = await app.inject({ method: 'PATCH', url: `/api/v1/notes/${a.id}`, headers: auth(o.token), payload: { pinned: true } })
  t.equal(patched.statusCode, 200)

  const again = await TestClient.open(`${url}?since=${seen.seq}&subscribe=note.*`, auth(o.token))
  t.equal(again.messages[0]?.type, 'ready', 'ready comes first')
  t.equal(again.of('ready')[0]?.data.replay, 3)
  await again.next((m) => m.type === 'note.updated')
  const live = await createNote(app, o.token, 'live')
  await again.next((m) => m.type === 'note.created' && m.id === live.id)
  t.same(
    noteEvents(again).map((m) => [m.type, m.id]),
    [
      ['note.created', missed[0]?.id],
      ['note.created', missed[1]?.id],
      ['note.updated', a.id],
      ['note.created', live.id],
    ],
    'the missed events, in order, then the live one',
  )
  t.equal(noteEvents(again)[2]?.data.pinned, true, 'replayed with the record as the API returned it')
  t.equal(noteEvents(again)[2]?.data.etag, patched.json().data.etag)
  again.close()
})

/** A daemon that sent one event to a client, wrote `afterwards` notes with nobody listening, then stopped. */
async function stoppedAfterOneEvent(t: TestContext, afterwards: string[]) {
  const first = await listening(t)
  const o = await owner(first.app)
  const client = await TestClient.open(first.url, auth(o.token))
  const a = await createNote(first.app, o.token, 'seen')
  const seen = (await client.next((m) => m.id === a.id)) as Event
  client.close()
  const missed = []
  for (const content of afterwards) missed.push(await createNote(first.app, o.token, content))
  await first.app.close()
  return { dataDir: first.app.dataDir, o, seen, missed }
}

t.test('resume across a daemon restart on the same data folder', async (t) => {
  const {
    dataDir,
    o,
    seen,
    missed: [missed],
  } = await stoppedAfterOneEvent(t, ['missed while it restarts'])

  const second = await listening(t, { dataDir })
  const back = await TestClient.open(`${second.url}?since=${seen.seq}`, auth(o.token))
  await back.next((m) => m.id === missed?.id)
  const after = await createNote(second.app, o.token, 'after the restart')
  await back.next((m) => m.id === after.id)
  // Start-up events of the new daemon (system-wide, for owners) come between: only notes are compared.
  const got = events(back).filter((m) => m.type.startsWith('note.'))
  t.same(
    got.map((m) => m.id),
    [missed?.id, after.id],
  )
  t.ok((got[1]?.seq as number) > (got[0]?.seq as number), 'seq keeps increasing after the restart')
  back.close()
})

t.test('after an unclean stop (a crash) old cursors resync and no seq is handed out twice', async (t) => {
  const { dataDir, o, seen } = await stoppedAfterOneEvent(t, [])
  // What a crash leaves: the stop was never marked clean (queued rows may be lost).
  const db = new Database(join(dataDir, 'hearth.db'))
  db.prepare('UPDATE realtime_journal_state SET clean = 0').run()
  db.close()

  const second = await listening(t, { dataDir })
  const back = await TestClient.open(`${second.url}?since=${seen.seq}`, auth(o.token))
  t.equal(back.messages[0]?.type, 'resync_required', 'events after the cursor may be lost: resync')
  const after = await createNote(second.app, o.token, 'after the crash')
  const fresh = (await back.next((m) => m.id === after.id)) as Event
  t.ok(fresh.seq > seen.seq + MAX_PENDING, 'the seq jumps past whatever may have been handed out unwritten')
  const resumed = await TestClient.open(`${second.url}?since=${back.of('resync_required')[0]?.data.seq}`, auth(o.token))
  await resumed.next((m) => m.id === after.id)
  t.equal(resumed.messages[0]?.type, 'ready', 'the cursor resync_required gave resumes')
  back.close()
  resumed.close()
})

t.test('a cursor the journal no longer covers gets resync_required first, then live events', async (t) => {
  const { app, url } = await listening(t, { env: { HEARTH_REALTIME_JOURNAL_SIZE: '3' } })
  const o = await owner(app)
  const watcher = await TestClient.open(url, auth(o.token))
  const start = watcher.of('ready')[0]?.data.seq as number
  for (let n = 0; n < 80; n++) await createNote(app, o.token, `note ${n}`)
  const lastMessage = (await watcher.next((m) => m.type === 'note.created' && m.data.content === 'note 79')) as Event

  const stale = await TestClient.open(`${url}?since=${start}`, auth(o.token))
  t.equal(stale.messages[0]?.type, 'resync_required', 'the very first message')
  t.same(stale.messages[0]?.data, { since: start, seq: lastMessage.seq })
  t.equal(stale.of('ready')[0]?.data.replay, 0, 'nothing replayed')
  const live = await createNote(app, o.token, 'after the resync')
  await stale.next((m) => m.id === live.id)

  const future = await TestClient.open(`${url}?since=${lastMessage.seq + 1000}`, auth(o.token))
  t.equal(future.messages[0]?.type, 'resync_required', 'a cursor from the future (another journal) resyncs too')

  const recent = await TestClient.open(`${url}?since=${lastMessage.seq - 1}`, auth(o.token))
  t.equal(recent.messages[0]?.type, 'ready', 'a recent cursor still resumes')
  await recent.next((m) => m.type === 'note.created' && m.data.content === 'note 79')
  for (const c of [watcher, stale, future, recent]) c.close()
})

t.test('replay applies the subscribe filter and never carries another user’s events', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  const other = await addUser(app, o.token)
  const cursor = await cursorNow(url, o.token)

  await createNote(app, o.token, 'owner note')
  const contact = await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: auth(o.token), payload: { first_name: 'Ada' } })
  const theirs = await createNote(app, other.token, 'their note')

  const filtered = await TestClient.open(`${url}?since=${cursor}&subscribe=contact.*`, auth(o.token))
  t.same(filtered.of('ready')[0]?.data.subscribe, ['contact.*'])
  await filtered.next((m) => m.type === 'contact.created')
  t.same(
    events(filtered).map((m) => [m.type, m.id]),
    [['contact.created', contact.json().data.id]],
    'only what the filter lets through',
  )
  await createNote(app, o.token, 'live note, filtered out')
  const liveContact = await app.inject({
    method: 'POST',
    url: '/api/v1/contacts',
    headers: auth(o.token),
    payload: { first_name: 'Grace' },
  })
  await filtered.next((m) => m.id === liveContact.json().data.id)
  t.notOk(
    filtered.messages.some((m) => m.type.startsWith('note.')),
    'the filter holds for live events too',
  )

  const own = await TestClient.open(`${url}?since=0`, auth(other.token))
  await own.next((m) => m.id === theirs.id)
  t.ok(
    events(own).every((m) => (m.type === 'note.created' ? m.id === theirs.id : true)) &&
      !events(own).some((m) => m.type === 'contact.created'),
    'the other user replays their own events only',
  )
  const mineFromZero = await TestClient.open(`${url}?since=0`, auth(o.token))
  await mineFromZero.next((m) => m.type === 'contact.created')
  t.notOk(
    events(mineFromZero).some((m) => m.id === theirs.id),
    'and the owner never sees theirs',
  )
  for (const c of [filtered, own, mineFromZero]) c.close()
})

t.test('a sync key replays record events only (the scope rule of live delivery)', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  const key = await apiKey(app, o.token, { scope: 'sync' })
  const cursor = await cursorNow(url, o.token)
  const zone = await app.inject({
    method: 'POST',
    url: '/api/v1/dns/zones',
    headers: auth(o.token),
    payload: { zone: 'home.example', mode: 'authoritative' },
  })
  t.equal(zone.statusCode, 201)
  const note = await createNote(app, o.token, 'synced')
  const sync = await TestClient.open(`${url}?since=${cursor}`, auth(key))
  await sync.next((m) => m.id === note.id)
  t.same(
    events(sync).map((m) => m.type),
    ['note.created'],
    'the DNS change stays out of the replay',
  )
  sync.close()
})

t.test('a replay larger than the overflow limit is paced, not dropped; live events wait behind it', async (t) => {
  const { app, url } = await listening(t, { env: { HEARTH_WS_MAX_BUFFER_BYTES: '4096' } })
  const o = await owner(app)
  const cursor = await cursorNow(url, o.token)
  const big = 'x'.repeat(3000)
  const written = []
  for (let n = 0; n < 40; n++) written.push((await createNote(app, o.token, `${n} ${big}`)).id)
  const client = await TestClient.open(`${url}?since=${cursor}&subscribe=note.*`, auth(o.token))
  const live = await createNote(app, o.token, 'live during the replay')
  await client.next((m) => m.id === live.id, 10_000)
  t.same(
    events(client).map((m) => m.id),
    [...written, live.id],
    'all 40 (120 KB through a 4 KB limit), in order, then the live one',
  )
  client.close()
})

t.test('a bad since or subscribe is refused with 400 before the upgrade', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  for (const query of ['since=-1', 'since=abc', 'since=1.5', 'since=', 'since=99999999999999999999', 'subscribe=NOTE', 'subscribe=a,,b']) {
    const refused = await refusedStatus(`${url}?${query}`, auth(o.token))
    t.equal(refused.status, 400, query)
    t.equal(JSON.parse(refused.body).error.code, 'INVALID_QUERY', query)
  }
})
