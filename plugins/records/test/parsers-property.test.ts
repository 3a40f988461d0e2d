import Database from 'better-sqlite3'
import fc from 'fast-check'
import { strToU8, zipSync } from 'fflate'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { ftsQuery } from '../engine/fts.js'
import { ArchiveError, readArchive } from '../formats/archive.js'
import { parseYaml } from '../formats/front-matter.js'
import { parseICalendar } from '../formats/ics-parse.js'
import { parseNoteFile } from '../formats/markdown.js'
import { parseVCards } from '../formats/vcard-parse.js'

/**
 * Every records parser that reads outside bytes, fed arbitrary input: it returns, or
 * raises its own error, which the routes turn into a 4xx; never anything else. Linear time is
 * asserted by size, not by the clock: each generated fragment is also repeated to ~256 KB and
 * parsed, which a quadratic parser cannot finish within the test's time-out (120k spaces once
 * took 12.7 s; 256 KB of a bad shape would take minutes).
 */

const RUNS = { numRuns: 300 }
const BIG = 256 * 1024

/** Repeats a fragment to about `size` characters. */
const grow = (fragment: string, size = BIG) => (fragment.length === 0 ? '' : fragment.repeat(Math.ceil(size / fragment.length)))

/** Text shaped like the formats, so the generator reaches past the first check. */
const contentLines = fc.array(
  fc.oneof(
    fc.constantFrom(
      'BEGIN:VCARD',
      'END:VCARD',
      'BEGIN:VCALENDAR',
      'BEGIN:VEVENT',
      'END:VEVENT',
      'END:VCALENDAR',
      'VERSION:3.0',
      'VERSION:2.1',
    ),
    fc
      .tuple(
        fc.constantFrom('FN', 'N', 'EMAIL', 'TEL', 'ADR', 'DTSTART', 'DTEND', 'RRULE', 'SUMMARY', 'ATTENDEE', 'PHOTO', 'X-HEARTH-FIELD'),
        fc.string(),
        fc.string(),
      )
      .map(([name, params, value]) => `${name}${params ? `;${params}` : ''}:${value}`),
    fc.string().map((s) => ` ${s}`),
    fc.string(),
  ),
  { maxLength: 40 },
)
const crlf = (lines: string[]) => lines.join('\r\n')

/** Calls `parse` and reports anything thrown that is not one of `allowed`. */
function only(parse: () => unknown, ...allowed: Array<new (...args: never[]) => Error>): void {
  try {
    parse()
  } catch (err) {
    if (allowed.some((type) => err instanceof type)) return
    throw err
  }
}

t.test('vCard: any text parses into entries and failures, never a throw', async (t) => {
  fc.assert(
    fc.property(contentLines, fc.string(), (lines, noise) => {
      const result = parseVCards(crlf(lines) + noise)
      return Array.isArray(result.entries) && result.entries.length + result.failed.length <= lines.length + 1
    }),
    RUNS,
  )
  fc.assert(
    fc.property(contentLines, (lines) => void parseVCards(grow(crlf([...lines, ''])))),
    { numRuns: 20 },
  )
  t.pass('vCard')
})

t.test('iCalendar: any text parses into entries and failures, never a throw', async (t) => {
  fc.assert(
    fc.property(contentLines, fc.string(), (lines, noise) => Array.isArray(parseICalendar(crlf(lines) + noise).entries)),
    RUNS,
  )
  fc.assert(
    fc.property(contentLines, (lines) => void parseICalendar(grow(crlf([...lines, ''])))),
    { numRuns: 20 },
  )
  t.pass('iCalendar')
})

t.test('front matter and Markdown notes: parse or refuse with an Error, in linear time', async (t) => {
  const yamlish = fc.array(
    fc.oneof(
      fc.tuple(fc.string(), fc.string()).map(([k, v]) => `${k}: ${v}`),
      fc.constantFrom('- item', '  - nested', 'key: [a, b, "c"]', 'key: {a: 1}', 'text: |', '  block', "'q''uoted': x", '"k": "v"', '#'),
      fc.string(),
    ),
    { maxLength: 20 },
  )
  fc.assert(
    fc.property(yamlish, (lines) => only(() => parseYaml(lines.join('\n')), Error)),
    RUNS,
  )
  fc.assert(
    fc.property(yamlish, fc.string(), (lines, body) => only(() => parseNoteFile('n.md', `---\n${lines.join('\n')}\n---\n${body}`), Error)),
    RUNS,
  )
  fc.assert(
    fc.property(fc.string({ maxLength: 8 }), (fragment) => only(() => parseYaml(`key: ${grow(fragment, 64 * 1024)}`), Error)),
    { numRuns: 30 },
  )
  fc.assert(
    fc.property(fc.string({ maxLength: 8 }), (fragment) => only(() => parseYaml(grow(fragment, 64 * 1024)), Error)),
    { numRuns: 30 },
  )
  t.pass('front matter')
})

t.test('archives: zip, tar and tar.gz of anything read or refuse with ArchiveError', async (t) => {
  // fflate's zipSync (building the test's own archive) walks member names as object keys: '__proto__' breaks it.
  const name = fc.string({ minLength: 1, maxLength: 20 }).filter((k) => k !== '__proto__')
  const members = fc.dictionary(name, fc.string(), { maxKeys: 5 })
  fc.assert(
    fc.property(members, (files) => {
      const zip = zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])))
      return readArchive(zip, () => true).length === Object.keys(files).filter((k) => k !== '__proto__').length
    }),
    { numRuns: 100 },
  )
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 4096 }), fc.constantFrom([0x50, 0x4b], [0x1f, 0x8b], []), (bytes, magic) => {
      only(() => readArchive(Uint8Array.from([...magic, ...bytes]), () => true), ArchiveError)
    }),
    RUNS,
  )
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
      const tar = new Uint8Array(1024 + bytes.length)
      tar.set(bytes, 0)
      tar.set(strToU8('ustar'), 257)
      only(() => readArchive(gzipSync(tar), () => true), ArchiveError)
    }),
    RUNS,
  )
  t.pass('archives')
})

t.test('the FTS query builder turns any text into a valid MATCH expression', async (t) => {
  const db = new Database(':memory:')
  t.teardown(() => db.close())
  db.exec("CREATE VIRTUAL TABLE f USING fts5(body, tokenize = 'unicode61'); INSERT INTO f VALUES ('meeting notes about DNS')")
  const match = db.prepare('SELECT count(*) AS n FROM f WHERE f MATCH ?')
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"', 'NEAR(', 'a OR', '*', '^x', 'col:x', ')(')),
      (text) => {
        const q = ftsQuery(text)
        if (q === null) return true
        match.get(q) // throws on a syntax error
        return q.length <= 16 * 70
      },
    ),
    { numRuns: 500 },
  )
  t.equal(ftsQuery(grow('word ', 1024 * 1024))?.split(' ').length, 16, 'a megabyte of words builds 16 terms')
})
