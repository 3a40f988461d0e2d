import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { unzipSync, zipSync } from 'fflate'
import t from 'tap'
import { sourcePath } from '../../../test/paths.js'
import { parseNoteFile, parseNotesArchive, serializeNote, serializeNotesArchive } from '../formats/markdown.js'
import type { NoteRecord } from '../formats/types.js'

const vault = sourcePath(import.meta.url, 'fixtures/obsidian-vault')
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]))
const vaultZip = () =>
  zipSync({
    ...Object.fromEntries(
      walk(vault)
        .sort()
        .map((file) => [`vault/${relative(vault, file)}`, readFileSync(file)]),
    ),
    'vault/.obsidian/workspace.md': new TextEncoder().encode('ignored: dotfile'),
    '__MACOSX/vault/._Inbox.md': new Uint8Array([0, 5, 22, 7]),
    'vault/latin1.md': new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
    'vault/image.png': new Uint8Array([137, 80, 78, 71]),
  })

t.test('an Obsidian-style vault: block lists, flow maps, quoting, unknown keys kept, broken files reported', async (t) => {
  const { entries, failed } = parseNotesArchive(vaultZip())
  const byFile = new Map(entries.map((e) => [e.file, e.record]))
  t.same([...byFile.keys()], ['vault/Garden plan.md', 'vault/Inbox.txt', 'vault/Journal/2026-11-20.md', 'vault/Recipe - Pancakes.md'])
  t.same(byFile.get('vault/Garden plan.md'), {
    title: 'Garden plan',
    content: '# Garden plan\n\n- [ ] Tomatoes: *San Marzano*, 6 plants\n- [ ] Beans; climbing\n\n> Water in the morning.\n',
    content_format: 'markdown',
    tags: ['garden', 'spring'],
    pinned: true,
    archived: false,
    custom_fields: { aliases: ['Garden', 'Veg patch'], date: '2026-03-14', beds: 4, soil: { ph: 6.5, tested: true } },
  })
  t.same(byFile.get('vault/Recipe - Pancakes.md'), {
    title: "Grandma's pancakes",
    content: '1. 2 eggs\n2. 250 ml milk\n',
    content_format: 'markdown',
    tags: ['recipes', 'breakfast', 'sweet, quick'],
    pinned: false,
    archived: false,
    custom_fields: { description: 'Fluffy pancakes, the family way.\n' },
    created_at: '2025-01-02T08:00:00.000Z',
    updated_at: '2025-02-03T09:10:11.000Z',
    source: 'google_keep',
  })
  t.match(byFile.get('vault/Inbox.txt'), { title: 'Inbox', content: 'Call the plumber\r\nabout the leak.\r\n', content_format: 'plain' })
  t.match(byFile.get('vault/Journal/2026-11-20.md'), {
    title: '2026-11-20',
    content: 'No front matter here, just text.\n---\nA horizontal rule above is content.\n',
  })
  t.same(
    failed.map((f) => [f.file, f.index]),
    [
      ['vault/Broken.md', 0],
      ['vault/latin1.md', 5],
    ],
  )
  t.match(failed[0].error, /line 2: unterminated collection/)
  t.match(failed[1].error, /UTF-8/)
})

const notes: Array<NoteRecord & { id: string }> = [
  {
    id: '0b6e8a52-6c2f-4c1e-9a57-3f5f0f4c2b11',
    title: 'Trip: Lisbon, "May" \\ 2027',
    content: '---\nnot front matter, but content\n---\n\n* item\n',
    content_format: 'markdown',
    tags: ['travel', 'with, comma', 'ümlaut'],
    pinned: true,
    archived: true,
    custom_fields: { budget: 1500, cities: ['Lisbon', 'Porto'], 'odd key: x': null, nested: { a: { b: 'c' } } },
    source: 'local',
    created_at: '2026-10-01T10:00:00.123Z',
    updated_at: '2026-10-02T11:00:00.456Z',
  },
  {
    id: '1c7f9b63-7d30-4d2f-8b68-4a6a1a5d3c22',
    title: null,
    content: '<p>html body</p>',
    content_format: 'html',
    tags: [],
    pinned: false,
    archived: false,
    custom_fields: null,
    created_at: '2026-10-03T10:00:00.000Z',
    updated_at: '2026-10-03T10:00:00.000Z',
  },
  {
    id: '2d8a0c74-8e41-4e30-9c79-5b7b2b6e4d33',
    title: 'Trip: Lisbon, "May" \\ 2027',
    content: 'same title, second file',
    content_format: 'plain',
    tags: [],
    pinned: false,
    archived: false,
    custom_fields: null,
  },
]

t.test('notes → zip → notes is lossless, with safe unique file names', async (t) => {
  const zip = serializeNotesArchive(notes)
  t.same(Object.keys(unzipSync(zip)), [
    'Trip Lisbon, May 2027.md',
    '1c7f9b63-7d30-4d2f-8b68-4a6a1a5d3c22.md',
    'Trip Lisbon, May 2027 (2).md',
  ])
  const { entries, failed } = parseNotesArchive(zip)
  t.same(failed, [])
  t.same(
    entries.map((e) => e.record),
    notes.map(({ id: _id, ...note }) => note),
  )
})

t.test('a single file: front matter only at the very start; CRLF files', async (t) => {
  t.same(parseNoteFile('x.md', serializeNote(notes[0])), (({ id: _id, ...n }) => n)(notes[0]))
  const crlf = '---\r\ntitle: Windows\r\ntags:\r\n- a\r\n- b\r\n---\r\nbody\r\n'
  t.match(parseNoteFile('w.md', crlf), { title: 'Windows', tags: ['a', 'b'], content: 'body\r\n' })
  t.throws(() => parseNoteFile('x.md', '---\ncontent_format: docx\n---\n'), /content_format/)
  t.throws(() => parseNoteFile('x.md', '---\npinned: yes please\n---\n'), /pinned must be true or false/)
  t.throws(() => parseNoteFile('x.md', '---\nanchor: &a 1\n---\n'), /anchors/)
})

t.test('tar.gz archives are read too', async (t) => {
  const bytes = execFileSync('tar', ['-czf', '-', '-C', vault, 'Garden plan.md', 'Journal'])
  const { entries, failed } = parseNotesArchive(new Uint8Array(bytes))
  t.same(failed, [])
  t.same(entries.map((e) => e.record.title).sort(), ['2026-11-20', 'Garden plan'])
})

t.test('not an archive, and zip bombs, are refused as a whole', async (t) => {
  t.throws(() => parseNotesArchive(new TextEncoder().encode('hello')), /expected a zip, tar or tar.gz/)
  const bomb = zipSync({ 'big.md': new Uint8Array(17 * 1024 * 1024) }, { level: 9 })
  t.ok(bomb.length < 100_000, 'the bomb is small on the wire')
  t.throws(() => parseNotesArchive(bomb), /too large/)
})

t.test('pathological front matter stays fast and fails alone', async (t) => {
  const started = Date.now()
  t.match(parseNoteFile('a.md', `---\n${'x: y\n'.repeat(20_000)}`), { title: 'a' }, 'never closed: all content')
  t.match(parseNoteFile('b.md', `text\n${'---\n'.repeat(50_000)}`), { title: 'b' }, 'rules later in the text are content')
  t.throws(() => parseNoteFile('c.md', `---\nk: ${'['.repeat(100_000)}\n---\n`))
  t.ok(Date.now() - started < 2000, `linear time (${Date.now() - started} ms)`)
})
