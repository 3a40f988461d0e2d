import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { openDatabase } from '../../../core/db/sqlite.js'
import { compileCheck } from '../../../core/validation.js'
import { createRecordsService } from '../service.js'
import type { ListQuery } from '../engine/types.js'
import { bench } from './records-app.js'

/**
 * The query cache carries a user's cached pages and totals across that user's own creations
 * (engine/query-cache.ts, list.ts pageAfter): unchanged when the new record is not in the listing,
 * merged into a first page when it is. Whatever the writes, every answer through HTTP must be the
 * one the uncached queries give (a second connection, no list cache: the old query) and, for
 * notes, the one a brute-force oracle computes from what was written. A wrong carry-over (a page
 * kept although the new record belongs to it, a merge that ignores the order or the limit, a total
 * not raised, a page past the first merged) answers differently from both.
 */

const WORDS = ['alpha', 'alphabet', 'beta', 'gamma', 'delta']
const TAGS = ['red', 'blue']

interface Note {
  id: string
  seq: number
  title: string
  content: string
  tags: string[]
  pinned: boolean
  archived: boolean
  deleted: boolean
  erased?: boolean
  created_at: string
  updated_at: string
}

/** The listings asked again and again (so that cached answers get carried), as path and service query. */
const LISTINGS: Array<{ path: string; query: Partial<ListQuery>; oracle?: (n: Note) => boolean; sort?: keyof Note; desc?: boolean }> = [
  {
    path: '/notes?search=alpha&sort=updated_at',
    query: { search: 'alpha', sort: 'updated_at' },
    oracle: words('alpha'),
    sort: 'updated_at',
    desc: true,
  },
  {
    path: '/notes?search=alp&sort=title&order=asc',
    query: { search: 'alp', sort: 'title', order: 'asc' },
    oracle: words('alp'),
    sort: 'title',
  },
  {
    path: '/notes?search=beta%20gamma&sort=created_at&order=asc',
    query: { search: 'beta gamma', sort: 'created_at', order: 'asc' },
    oracle: words('beta', 'gamma'),
    sort: 'created_at',
  },
  {
    path: '/notes?search=gamma&tag=red&sort=updated_at',
    query: { search: 'gamma', tag: ['red'], sort: 'updated_at' },
    oracle: (n) => words('gamma')(n) && n.tags.includes('red'),
    sort: 'updated_at',
    desc: true,
  },
  { path: '/notes?tag=blue', query: { tag: ['blue'] }, oracle: (n) => n.tags.includes('blue'), sort: 'updated_at', desc: true },
  {
    path: '/notes?pinned=true&sort=title&order=desc',
    query: { pinned: true, sort: 'title', order: 'desc' },
    oracle: (n) => n.pinned,
    sort: 'title',
    desc: true,
  },
  { path: '/notes', query: {}, oracle: () => true, sort: 'updated_at', desc: true },
  // Ranked by relevance: never carried (any new row moves bm25), only its total is; no oracle for the order.
  { path: '/notes?search=delta', query: { search: 'delta' } },
  { path: '/contacts?search=ann&sort=updated_at&order=desc', query: { search: 'ann', sort: 'updated_at', order: 'desc' } },
  { path: '/contacts', query: {} },
]

/** Every word must start some word of the title or the content (ftsQuery: each word a prefix, ANDed). */
function words(...wanted: string[]): (n: Note) => boolean {
  return (n) => {
    const tokens = `${n.title} ${n.content}`.toLowerCase().split(/\s+/)
    return wanted.every((w) => tokens.some((tok) => tok.startsWith(w)))
  }
}

/**
 * The notes a listing shows, in its order: active and not archived, the filter, the sort with seq
 * as tie-breaker; with `after`, only those that sort after that note (wherever it is).
 */
function oracleOf(listing: (typeof LISTINGS)[number], notes: Note[], after?: Note): Note[] | null {
  const { oracle, sort, desc } = listing
  if (!oracle || !sort) return null
  const value = (n: Note) => (sort === 'title' ? n.title.toLowerCase() : (n[sort] as string))
  const sign = desc ? -1 : 1
  const order = (a: Note, b: Note) => (value(a) === value(b) ? sign * (a.seq - b.seq) : sign * (value(a) < value(b) ? -1 : 1))
  return notes.filter((n) => !n.deleted && !n.archived && oracle(n) && (!after || order(after, n) < 0)).sort(order)
}

const op = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('note' as const),
      title: fc.constantFrom(...WORDS, 'Zulu', 'apple'),
      words: fc.subarray(WORDS, { minLength: 0, maxLength: 3 }),
      tags: fc.subarray(TAGS),
      pinned: fc.boolean(),
      tick: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('contact' as const), name: fc.constantFrom('Ann Lee', 'Bob', 'Annette') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('other' as const), words: fc.subarray(WORDS, { minLength: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('patch' as const), at: fc.nat(), words: fc.subarray(WORDS) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), permanent: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('archive' as const), at: fc.nat() }) },
)

t.test('answers after any creations and other writes equal the uncached query and the oracle', async (t) => {
  // Thousands of requests of one token: the default rate limit (6,000 a minute) would answer 429.
  const b = await bench(t, { env: { HEARTH_RATE_LIMIT: '1000000' } })
  const { call, clock } = b
  await call('POST', '/contacts', { display_name: 'probe' })
  const userId = b.events[0]?.userId as string
  const other = await b.asOther()
  const second = openDatabase(join(b.app.dataDir, 'hearth.db'))
  t.teardown(() => second.close())
  const uncached = createRecordsService({
    validator: compileCheck,
    db: second,
    events: { emit: () => undefined as never },
    now: () => clock.ms,
    listCache: false,
    recordCacheBytes: 0,
  })
  const notes: Note[] = []
  let seq = 0
  let checks = 0

  /** One listing's page as the API answers it and as the uncached query and the oracle do. */
  const check = async (listing: (typeof LISTINGS)[number], limit: number, offset: number, after?: string): Promise<string | null> => {
    const cursor = after ? `&after=${after}` : ''
    const sep = listing.path.includes('?') ? '&' : '?'
    const res = await call('GET', `${listing.path}${sep}limit=${limit}&offset=${offset}${cursor}`)
    if (res.status !== 200) return `${listing.path}: ${res.status} ${JSON.stringify(res.body)}`
    const got = { ids: res.body.data.map((r: { id: string }) => r.id), total: res.body.meta.total }
    const resource = listing.path.startsWith('/contacts') ? 'contacts' : 'notes'
    const old = uncached.list(userId, resource, { limit, offset, ...listing.query, ...(after ? { after } : {}) })
    const want = { ids: old.items.map((r) => r.id), total: old.total }
    checks++
    if (JSON.stringify(got) !== JSON.stringify(want))
      return `${listing.path} limit ${limit} offset ${offset} after ${after}: ${JSON.stringify(got)} vs uncached ${JSON.stringify(want)}`
    const all = oracleOf(listing, notes, after === undefined ? undefined : notes.find((n) => n.id === after))
    if (!all) return null
    // The total is the whole listing's, whatever `after` leaves out.
    const total = (oracleOf(listing, notes) as Note[]).length
    const oracle = { ids: all.slice(offset, offset + limit).map((n) => n.id), total }
    if (JSON.stringify(got) !== JSON.stringify(oracle))
      return `${listing.path} limit ${limit} offset ${offset} after ${after}: ${JSON.stringify(got)} vs oracle ${JSON.stringify(oracle)}`
    return null
  }

  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(op, fc.boolean()), { minLength: 1, maxLength: 12 }),
      fc.constantFrom(1, 2, 3, 50),
      async (ops, limit) => {
        for (const [index, [o, quiet]] of ops.entries()) {
          if (o.kind === 'note') {
            if (o.tick) clock.advance(1000)
            const content = o.words.join(' ') || 'nothing'
            const res = await call('POST', '/notes', { title: o.title, content, tags: o.tags, pinned: o.pinned })
            const at = res.body.data.updated_at as string
            notes.push({
              id: res.body.data.id,
              seq: ++seq,
              title: o.title,
              content,
              tags: o.tags,
              pinned: o.pinned,
              archived: false,
              deleted: false,
              created_at: at,
              updated_at: at,
            })
          } else if (o.kind === 'contact') {
            await call('POST', '/contacts', { display_name: o.name })
          } else if (o.kind === 'other') {
            await other('POST', '/notes', { content: o.words.join(' ') })
          } else {
            const live = notes.filter((n) => !n.deleted)
            const target = live[o.at % Math.max(1, live.length)]
            if (!target) continue
            clock.advance(1000)
            if (o.kind === 'patch') {
              target.content = o.words.join(' ') || 'nothing'
              const res = await call('PATCH', `/notes/${target.id}`, { content: target.content })
              target.updated_at = res.body.data.updated_at
            } else if (o.kind === 'archive') {
              const res = await call('PATCH', `/notes/${target.id}`, { archived: !target.archived })
              target.archived = !target.archived
              target.updated_at = res.body.data.updated_at
            } else {
              // Erased: no record left to name, so the cache is told of a write it cannot follow.
              await call('DELETE', `/notes/${target.id}${o.permanent ? '?permanent=true' : ''}`)
              target.deleted = true
              target.erased = o.permanent
            }
          }
          // Some writes are not looked at: the next listings then follow several writes at once.
          if (quiet && index < ops.length - 1) continue
          // Every listing after the writes: first page, a later page, and by keyset after the first
          // item and after two fixed notes (an anchor that stays while records are created before it).
          for (const listing of LISTINGS) {
            const failed = [await check(listing, limit, 0), await check(listing, limit, 1)]
            if (listing.sort) {
              const first = (await call('GET', `${listing.path}${listing.path.includes('?') ? '&' : '?'}limit=1`)).body.data[0]?.id
              if (first) failed.push(await check(listing, limit, 0, first))
              for (const anchor of [notes[0], notes[3]])
                if (anchor && !anchor.erased) failed.push(await check(listing, limit, 0, anchor.id))
            }
            const first = failed.find((f) => f !== null)
            if (first) {
              t.fail(first)
              return false
            }
          }
        }
        return true
      },
    ),
    { numRuns: 25, seed: 11 },
  )
  t.ok(checks > 1000, `${checks} answers compared`)
})

t.test('a search right after the client own creation or edit is answered from the carried page, not queried again', async (t) => {
  const { app, call, clock } = await bench(t)
  const db = app.hearth.db
  const ran: string[] = []
  const prepare = db.prepare.bind(db)
  // Statements prepared from here on log each run (the lister prepares its queries on first use).
  db.prepare = ((sql: string) => {
    const stmt = prepare(sql)
    for (const method of ['all', 'get'] as const) {
      const run = stmt[method].bind(stmt) as (...args: unknown[]) => unknown
      ;(stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        ran.push(sql)
        return run(...args)
      }
    }
    return stmt
  }) as typeof db.prepare
  t.teardown(() => {
    db.prepare = prepare as typeof db.prepare
  })
  const path = '/notes?search=alpha&sort=updated_at&limit=2'
  const pageRuns = () => ran.filter((sql) => sql.startsWith('SELECT t.seq AS seq FROM notes t WHERE t.user_id = ?')).length
  const ids = async () => (await call('GET', path)).body
  for (const content of ['alpha one', 'alpha two', 'beta three']) {
    clock.advance(1000)
    await call('POST', '/notes', { content })
  }
  const first = await ids()
  t.equal(pageRuns(), 1, 'the page queried once')
  clock.advance(1000)
  await call('POST', '/notes', { content: 'gamma, not the word searched' })
  t.same(await ids(), first, 'a creation outside the search: the same page and total')
  t.equal(pageRuns(), 1, 'carried, not queried again')
  clock.advance(1000)
  const added = (await call('POST', '/notes', { content: 'alpha four' })).body.data.id
  const after = await ids()
  t.equal(after.data[0].id, added, 'a creation in the search: first on the first page')
  t.same(after.data[1].id, first.data[0].id)
  t.equal(after.meta.total, first.meta.total + 1)
  t.equal(pageRuns(), 1, 'merged, not queried again')
  clock.advance(1000)
  const older = first.data[1].id
  await call('PATCH', `/notes/${older}`, { content: 'alpha edited' })
  const edited = await ids()
  t.same(
    edited.data.map((n: { id: string }) => n.id),
    [older, added],
    'an edit that keeps the note in the search: first on the first page',
  )
  t.equal(pageRuns(), 1, 'carried, not queried again')
  await call('PATCH', `/notes/${added}`, { title: 'beta', content: 'beta now' })
  t.same(
    (await ids()).data.map((n: { id: string }) => n.id),
    [older, first.data[0].id],
  )
  t.equal(pageRuns(), 2, 'an edit that takes a note of a full page out of the search: queried again (the next row is not known)')
})
