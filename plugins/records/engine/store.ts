import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../../core/plugin-api.js'
import { runSteps, type Steps } from '../../../lib/paced-stream.js'
import { etagOf } from './etag.js'
import type { RecordCache } from './record-cache.js'
import type { ApiRecord, ResourceDefinition, SqlClause } from './types.js'

/**
 * One resource's table: rows in and out (booleans as 0/1, arrays and objects
 * as JSON text) through statements prepared once. Every statement is scoped
 * by user_id; none of them knows the HTTP layer. Every write raises the row's
 * `version` (the record's ETag) in the same statement; given an expected
 * version, the statement itself is the compare-and-swap (no check-then-write race).
 */
export type Row = Record<string, unknown> & { seq: number; id: string }

/** What a write of an existing record returns: its new version, and its row's sequence number (for the list cache). */
export interface WrittenRow {
  version: number
  seq: number
}

const MANAGED = ['source', 'created_at', 'updated_at', 'deleted_at'] as const

/** A chunk of rows read by one statement stays under about this many bytes of text once one row is known. */
const CHUNK_BYTES = 1024 * 1024

/** The characters of a row's texts: what reading it copied (its small columns aside). */
function textLength(row: Row): number {
  let n = 0
  for (const key in row) {
    const value = row[key]
    if (typeof value === 'string') n += value.length
  }
  return n
}

export class RecordStore {
  readonly columns: string[]
  /** Statements of scoped reads, by their SQL (one per number of shares a caller has). */
  private readonly scoped = new Map<string, Database.Statement>()
  private readonly stmt: {
    get: Database.Statement
    find: Database.Statement
    bySeq: Database.Statement
    bySeqAny: Database.Statement
    insert: Database.Statement
    update: Database.Statement
    setDeleted: Database.Statement
    remove: Database.Statement
    all: Database.Statement
    allActive: Database.Statement
    after: Database.Statement
    afterActive: Database.Statement
    purge: Database.Statement
  }

  constructor(
    readonly db: Database.Database,
    readonly def: ResourceDefinition,
    /** Records recently read, with their JSON text; null: every read goes to the table. */
    private readonly cache: RecordCache | null = null,
  ) {
    const t = def.name
    this.columns = Object.keys(def.columns)
    const writable = [...this.columns, ...MANAGED]
    const collection = def.sharing?.column
    // Prepared on first use: an idle daemon, or one whose users never touch a resource, runs none of them.
    this.stmt = preparedOnUse(db, {
      get: `SELECT * FROM ${t} WHERE id = ? AND user_id = ?`,
      // Whoever owns it: the records service asks sharing/access.ts before answering with it.
      find: `SELECT * FROM ${t} WHERE id = ?`,
      // CROSS JOIN keeps the keys as the outer loop, each row found by its primary key: left to the
      // planner, the user_id term walked the user's whole index (1,200,000 notes: 0.3-1.2 s a page).
      bySeq: `SELECT t.* FROM json_each(?) j CROSS JOIN ${t} t ON t.seq = j.value WHERE t.user_id = ?`,
      // The keys of a page scoped by the caller's shares (the list's query chose them).
      bySeqAny: `SELECT t.* FROM json_each(?) j CROSS JOIN ${t} t ON t.seq = j.value`,
      insert: `INSERT INTO ${t} (id, user_id, ${writable.join(', ')}) VALUES (@id, @user_id, ${writable.map((c) => `@${c}`).join(', ')})`,
      update:
        `UPDATE ${t} SET ${[...this.columns, 'updated_at'].map((c) => `${c} = @${c}`).join(', ')}, version = version + 1 ` +
        `WHERE id = @id AND user_id = @user_id AND (@expected IS NULL OR version = @expected) RETURNING version, seq`,
      setDeleted:
        `UPDATE ${t} SET deleted_at = @deleted_at, version = version + 1 ` +
        `WHERE id = @id AND user_id = @user_id AND (@expected IS NULL OR version = @expected) RETURNING version, seq`,
      remove: `DELETE FROM ${t} WHERE id = @id AND user_id = @user_id AND (@expected IS NULL OR version = @expected)`,
      all: `SELECT * FROM ${t} WHERE user_id = ? ORDER BY seq`,
      allActive: `SELECT * FROM ${t} WHERE user_id = ? AND deleted_at IS NULL ORDER BY seq`,
      after: `SELECT * FROM ${t} WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      afterActive: `SELECT * FROM ${t} WHERE user_id = ? AND seq > ? AND deleted_at IS NULL ORDER BY seq LIMIT ?`,
      // With the column naming the record's collection: its change event says whose and where (realtime's readers).
      purge: `DELETE FROM ${t} WHERE deleted_at IS NOT NULL AND deleted_at < ? RETURNING id, user_id${collection && collection !== 'id' ? `, ${collection}` : ''}`,
    })
  }

  /** A row as the API returns it: id, its owner, the resource's columns, then source, timestamps and etag. */
  toRecord(row: Record<string, unknown>): ApiRecord {
    const out: ApiRecord = { id: row.id as string, owner_id: row.user_id as string }
    for (const [col, kind] of Object.entries(this.def.columns)) {
      const v = row[col]
      out[col] = kind === 'bool' ? v === 1 : kind === 'json' ? (v === null ? null : JSON.parse(v as string)) : v
    }
    for (const col of MANAGED) out[col] = row[col]
    out.etag = etagOf(row.version as number)
    return out
  }

  /** The record in its stored form and field order (what a read would return) at `version`. */
  canonical(record: Record<string, unknown>, version: number): ApiRecord {
    return this.toRecord({ ...this.toParams(String(record.owner_id ?? ''), record), version })
  }

  /** The SQL parameters of a record (the reverse of toRecord). */
  private toParams(userId: string, record: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = { id: record.id, user_id: userId }
    for (const [col, kind] of Object.entries(this.def.columns)) {
      const v = record[col]
      out[col] = kind === 'bool' ? (v ? 1 : 0) : kind === 'json' ? (v === null || v === undefined ? null : JSON.stringify(v)) : (v ?? null)
    }
    for (const col of MANAGED) out[col] = record[col] ?? null
    return out
  }

  /** The record, or null; a record served from the cache is frozen (copy it to change it). */
  get(userId: string, id: string): ApiRecord | null {
    const hit = this.cache?.byIdFor(userId, id)
    if (hit) return hit
    const row = this.stmt.get.get(id, userId) as Row | undefined
    if (!row) return null
    const record = this.toRecord(row)
    return this.cache ? this.cache.keep(userId, row.seq, record) : record
  }

  /** The record of this id whoever owns it (`owner_id` says whose), or null. */
  find(id: string): ApiRecord | null {
    const hit = this.cache?.byIdFor(null, id)
    if (hit) return hit
    const row = this.stmt.find.get(id) as Row | undefined
    if (!row) return null
    const record = this.toRecord(row)
    return this.cache ? this.cache.keep(row.user_id as string, row.seq, record) : record
  }

  /**
   * The records with these sequence numbers, in their order; one gone since is left out (a list
   * page: its keys come from a user-scoped query, perhaps cached). `accept`, when given, sees each
   * record in turn and ends the reading when it answers false (that record left out): rows are
   * then read in chunks of 1, 2, 4... while a chunk stays under CHUNK_BYTES (fewer rows after a
   * larger one), so a page cut by its byte budget reads at most about twice the rows it keeps, and
   * no one read holds megabytes of rows. The steps pause between chunks (runSteps / pacedSteps).
   */
  *bySeqsSteps(
    userId: string | null,
    seqs: number[],
    accept?: (record: ApiRecord) => boolean,
  ): Steps<Array<{ seq: number; record: ApiRecord }>> {
    const cache = this.cache?.enabled ? this.cache : null
    const out: Array<{ seq: number; record: ApiRecord }> = []
    // The first chunk is one row, then as many as the last chunk's bytes say fit: a list of large records
    // (300 repeating events of 90 KB, read whole for their expansion) was one statement of 27 MB.
    for (let start = 0, size = 1; start < seqs.length;) {
      // Checked again after every pause: a commit by another connection meanwhile empties the cache.
      cache?.checkExternal()
      const part = seqs.slice(start, start + size)
      start += part.length
      const hits = new Map<number, ApiRecord>()
      const missing: number[] = []
      for (const seq of part) {
        const hit = cache?.bySeqFor(userId, seq)
        if (hit) hits.set(seq, hit)
        else missing.push(seq)
      }
      const rows = new Map<number, Row>()
      let bytes = 0
      // No ORDER BY (it sorted every row, texts included, before the first came out): each row is placed by its key below.
      if (missing.length) {
        const found =
          userId === null ? this.stmt.bySeqAny.all(JSON.stringify(missing)) : this.stmt.bySeq.all(JSON.stringify(missing), userId)
        for (const row of found as Row[]) {
          rows.set(row.seq, row)
          bytes += textLength(row)
        }
      }
      for (const seq of part) {
        let record = hits.get(seq)
        const row = record ? undefined : rows.get(seq)
        if (row) record = cache ? cache.keep(row.user_id as string, seq, this.toRecord(row)) : this.toRecord(row)
        if (!record) continue
        if (accept && !accept(record)) return out
        out.push({ seq, record })
      }
      size = bytes > CHUNK_BYTES ? Math.max(1, Math.floor((size * CHUNK_BYTES) / bytes)) : size * 2
      if (start < seqs.length) yield
    }
    return out
  }

  bySeqs(userId: string | null, seqs: number[], accept?: (record: ApiRecord) => boolean): Array<{ seq: number; record: ApiRecord }> {
    return runSteps(this.bySeqsSteps(userId, seqs, accept))
  }

  /** Writes a new record; returns its sequence number. */
  insert(userId: string, record: ApiRecord): number {
    this.cache?.drop(record.id as string)
    return Number(this.stmt.insert.run(this.toParams(userId, record)).lastInsertRowid)
  }

  /**
   * Writes every column and updated_at of an existing record; returns its new version and its
   * sequence number, or null when no row was written (gone, or its version is no longer `expected`).
   */
  update(userId: string, record: ApiRecord, expected: number | null = null): WrittenRow | null {
    const params = this.toParams(userId, record)
    delete params.source
    delete params.created_at
    delete params.deleted_at
    this.cache?.drop(record.id as string)
    return this.written(this.stmt.update.get({ ...params, expected }))
  }

  /** Sets or clears deleted_at; as update answers. */
  setDeleted(userId: string, id: string, deletedAt: string | null, expected: number | null = null): WrittenRow | null {
    this.cache?.drop(id)
    return this.written(this.stmt.setDeleted.get({ deleted_at: deletedAt, id, user_id: userId, expected }))
  }

  /** Erases a record (at version `expected` when given); false when nothing was erased. */
  remove(userId: string, id: string, expected: number | null = null): boolean {
    // Triggers may change other records of the table (an override's series gains an exdate, a
    // series' overrides go): erasing is rare, so the table's whole cache goes.
    this.cache?.clear()
    return this.stmt.remove.run({ id, user_id: userId, expected }).changes > 0
  }

  private written(row: unknown): WrittenRow | null {
    return (row as WrittenRow | undefined) ?? null
  }

  /** Every record of a user, oldest first (export). */
  all(userId: string, includeDeleted: boolean): ApiRecord[] {
    return ((includeDeleted ? this.stmt.all : this.stmt.allActive).all(userId) as Row[]).map((r) => this.toRecord(r))
  }

  /**
   * Up to `limit` records of a user after sequence number `after`, oldest first: what reads every
   * record (an export) takes them a batch at a time, so it holds one batch, not the whole table.
   * The record cache is left alone (a pass over everything would evict what is in use).
   */
  after(userId: string, includeDeleted: boolean, after: number, limit: number): Array<{ seq: number; record: ApiRecord }> {
    const rows = (includeDeleted ? this.stmt.after : this.stmt.afterActive).all(userId, after, limit) as Row[]
    return rows.map((row) => ({ seq: row.seq, record: this.toRecord(row) }))
  }

  /**
   * As `after`, for the records a list scope selects (sharing/access.ts: the caller's own and
   * those shared with them), oldest first.
   */
  afterIn(scope: SqlClause, includeDeleted: boolean, after: number, limit: number): Array<{ seq: number; record: ApiRecord }> {
    const sql =
      `SELECT * FROM ${this.def.name} t WHERE ${scope.sql} AND t.seq > ?${includeDeleted ? '' : ' AND t.deleted_at IS NULL'} ` +
      'ORDER BY t.seq LIMIT ?'
    let stmt = this.scoped.get(sql)
    if (!stmt) {
      if (this.scoped.size > 100) this.scoped.clear()
      stmt = this.db.prepare(sql)
      this.scoped.set(sql, stmt)
    }
    const rows = stmt.all(...scope.params, after, limit) as Row[]
    return rows.map((row) => ({ seq: row.seq, record: this.toRecord(row) }))
  }

  /** Removes, for every user, records soft-deleted before `cutoff`; returns what went. */
  purge(cutoff: string): Array<{ id: string; user_id: string } & Record<string, unknown>> {
    const gone = this.stmt.purge.all(cutoff) as Array<{ id: string; user_id: string } & Record<string, unknown>>
    if (gone.length) this.cache?.clear()
    return gone
  }
}
