import type Database from 'better-sqlite3'
import { etagOf } from './etag.js'
import type { ApiRecord, ResourceDefinition } from './types.js'

/**
 * One resource's table: rows in and out (booleans as 0/1, arrays and objects
 * as JSON text) through statements prepared once. Every statement is scoped
 * by user_id; none of them knows the HTTP layer. Every write raises the row's
 * `version` (the record's ETag) in the same statement; given an expected
 * version, the statement itself is the compare-and-swap (no check-then-write race).
 */
export type Row = Record<string, unknown> & { seq: number; id: string }

const MANAGED = ['source', 'created_at', 'updated_at', 'deleted_at'] as const

export class RecordStore {
  readonly columns: string[]
  private readonly stmt: {
    get: Database.Statement
    insert: Database.Statement
    update: Database.Statement
    setDeleted: Database.Statement
    remove: Database.Statement
    all: Database.Statement
    allActive: Database.Statement
    purge: Database.Statement
  }

  constructor(
    readonly db: Database.Database,
    readonly def: ResourceDefinition,
  ) {
    const t = def.name
    this.columns = Object.keys(def.columns)
    const writable = [...this.columns, ...MANAGED]
    this.stmt = {
      get: db.prepare(`SELECT * FROM ${t} WHERE id = ? AND user_id = ?`),
      insert: db.prepare(
        `INSERT INTO ${t} (id, user_id, ${writable.join(', ')}) VALUES (@id, @user_id, ${writable.map((c) => `@${c}`).join(', ')})`,
      ),
      update: db.prepare(
        `UPDATE ${t} SET ${[...this.columns, 'updated_at'].map((c) => `${c} = @${c}`).join(', ')}, version = version + 1 ` +
          `WHERE id = @id AND user_id = @user_id AND (@expected IS NULL OR version = @expected) RETURNING version`,
      ),
      setDeleted: db.prepare(
        `UPDATE ${t} SET deleted_at = @deleted_at, version = version + 1 ` +
          `WHERE id = @id AND user_id = @user_id AND (@expected IS NULL OR version = @expected) RETURNING version`,
      ),
      remove: db.prepare(`DELETE FROM ${t} WHERE id = @id AND user_id = @user_id AND (@expected IS NULL OR version = @expected)`),
      all: db.prepare(`SELECT * FROM ${t} WHERE user_id = ? ORDER BY seq`),
      allActive: db.prepare(`SELECT * FROM ${t} WHERE user_id = ? AND deleted_at IS NULL ORDER BY seq`),
      purge: db.prepare(`DELETE FROM ${t} WHERE deleted_at IS NOT NULL AND deleted_at < ? RETURNING id, user_id`),
    }
  }

  /** A row as the API returns it: id, the resource's columns, then source, timestamps and etag. */
  toRecord(row: Record<string, unknown>): ApiRecord {
    const out: ApiRecord = { id: row.id as string }
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
    return this.toRecord({ ...this.toParams('', record), version })
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

  get(userId: string, id: string): ApiRecord | null {
    const row = this.stmt.get.get(id, userId) as Row | undefined
    return row ? this.toRecord(row) : null
  }

  insert(userId: string, record: ApiRecord): void {
    this.stmt.insert.run(this.toParams(userId, record))
  }

  /**
   * Writes every column and updated_at of an existing record; returns its new version, or null
   * when no row was written (gone, or its version is no longer `expected`).
   */
  update(userId: string, record: ApiRecord, expected: number | null = null): number | null {
    const params = this.toParams(userId, record)
    delete params.source
    delete params.created_at
    delete params.deleted_at
    return this.written(this.stmt.update.get({ ...params, expected }))
  }

  /** Sets or clears deleted_at; the new version, or null as for update. */
  setDeleted(userId: string, id: string, deletedAt: string | null, expected: number | null = null): number | null {
    return this.written(this.stmt.setDeleted.get({ deleted_at: deletedAt, id, user_id: userId, expected }))
  }

  /** Erases a record (at version `expected` when given); false when nothing was erased. */
  remove(userId: string, id: string, expected: number | null = null): boolean {
    return this.stmt.remove.run({ id, user_id: userId, expected }).changes > 0
  }

  private written(row: unknown): number | null {
    return row ? (row as { version: number }).version : null
  }

  /** Every record of a user, oldest first (export). */
  all(userId: string, includeDeleted: boolean): ApiRecord[] {
    return ((includeDeleted ? this.stmt.all : this.stmt.allActive).all(userId) as Row[]).map((r) => this.toRecord(r))
  }

  /** Removes, for every user, records soft-deleted before `cutoff`; returns what went. */
  purge(cutoff: string): Array<{ id: string; user_id: string }> {
    return this.stmt.purge.all(cutoff) as Array<{ id: string; user_id: string }>
  }
}
