/**
 * The notes the perf bench reads and writes: Markdown of about 1 KiB each (a heading, paragraphs with
 * emphasis and a link, a short list), every one different, words drawn with a Zipf-like skew from a
 * vocabulary of 3,000 (scripts/bench/records.ts) so that full-text indexing sees text-like term
 * frequencies. 1% carry the word WORD, which the searches look for.
 */
import { randomUUID } from 'node:crypto'
import { openDatabase } from '../../core/db/sqlite.js'
import { rng, vocabulary, WORD } from './records.js'

export interface NoteText {
  title: string
  content: string
  tags: string[]
}

/** A deterministic source of distinct ~1 KiB Markdown notes. */
export function noteWriter(seed: number): (index: number) => NoteText {
  const random = rng(seed)
  const vocab = vocabulary(random)
  const word = () => vocab[Math.floor(vocab.length * random() ** 3)] as string
  const words = (n: number) => Array.from({ length: n }, word).join(' ')
  const sentence = (n: number) => {
    const text = words(n)
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`
  }
  const paragraph = (sentences: number) => Array.from({ length: sentences }, () => sentence(8 + Math.floor(random() * 8))).join(' ')
  return (index) => {
    const title = sentence(4).slice(0, -1)
    const marked = index % 100 === 0 ? ` The ${WORD} figures are in.` : ''
    const content = [
      `# ${title}`,
      '',
      `${paragraph(3)} *${words(3)}* ${sentence(6)}${marked}`,
      '',
      `## ${sentence(3).slice(0, -1)}`,
      '',
      `- ${sentence(5)}`,
      `- ${sentence(6)}`,
      `- [${words(2)}](https://example.com/${index.toString(36)}) ${sentence(4)}`,
      '',
      `${paragraph(2)} Note ${index}.`,
    ].join('\n')
    return { title, content, tags: [vocab[index % 20] as string] }
  }
}

const INSERT = `INSERT INTO notes (id, user_id, title, content, content_format, tags, pinned, archived, custom_fields, source, created_at, updated_at, deleted_at)
  VALUES (@id, @user_id, @title, @content, 'markdown', @tags, @pinned, 0, NULL, 'local', @created_at, @updated_at, NULL)`

/**
 * Seeds `count` notes straight through SQLite (transactions of 10,000; the FTS triggers run as for any
 * write), timestamps one second apart from `from` on so orderings are stable. Returns every 25th id.
 */
export function seedNotes(file: string, userId: string, count: number, from = 0): { seconds: number; ids: string[] } {
  const note = noteWriter(42 + from)
  const db = openDatabase(file)
  const insert = db.prepare(INSERT)
  const base = Date.parse('2025-01-01T00:00:00Z')
  const ids: string[] = []
  const started = performance.now()
  const batch = db.transaction((start: number, end: number) => {
    for (let i = start; i < end; i++) {
      const id = randomUUID()
      if (i % 25 === 0) ids.push(id)
      const at = new Date(base + i * 1000).toISOString()
      const { title, content, tags } = note(i)
      insert.run({
        id,
        user_id: userId,
        title,
        content,
        tags: JSON.stringify(tags),
        pinned: i % 50 === 0 ? 1 : 0,
        created_at: at,
        updated_at: at,
      })
    }
  })
  for (let i = from; i < from + count; i += 10_000) batch(i, Math.min(from + count, i + 10_000))
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  return { seconds: (performance.now() - started) / 1000, ids }
}

/**
 * better-sqlite3 alone writing what a create writes (the same note row, the same FTS5 triggers, the
 * daemon's pragmas) in transactions of `perTx` (group commit's batching with that many requests in
 * flight), for `seconds`: rows per second.
 */
export function sqliteCreates(file: string, userId: string, perTx: number, seconds: number): number {
  const note = noteWriter(7)
  const db = openDatabase(file)
  const insert = db.prepare(INSERT)
  let n = 0
  const many = db.transaction((count: number) => {
    for (let i = 0; i < count; i++, n++) {
      const at = new Date().toISOString()
      const { title, content, tags } = note(n)
      insert.run({
        id: randomUUID(),
        user_id: userId,
        title,
        content,
        tags: JSON.stringify(tags),
        pinned: 0,
        created_at: at,
        updated_at: at,
      })
    }
  })
  const started = performance.now()
  try {
    while (performance.now() - started < seconds * 1000) many(perTx)
    return Math.round(n / ((performance.now() - started) / 1000))
  } finally {
    db.close()
  }
}

/** Request bodies for POST /notes: `count` different notes (wrk cycles through them and numbers each). */
export function createBodies(count: number): string[] {
  const note = noteWriter(99)
  return Array.from({ length: count }, (_, i) => JSON.stringify(note(i)))
}
