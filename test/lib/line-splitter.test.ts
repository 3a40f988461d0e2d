import t from 'tap'
import { createLineSplitter } from '../../lib/line-splitter.js'

const split = (chunks: string[], max?: number) => {
  const lines: string[] = []
  const s = createLineSplitter((l) => lines.push(l), max)
  for (const c of chunks) s.push(c)
  s.end()
  return { lines, dropped: s.dropped }
}

t.test('lines come out whole whatever the chunk boundaries', async (t) => {
  const text = '{"a":1}\n{"b":2}\r\n\n{"c":3}'
  const whole = split([text]).lines
  t.same(whole, ['{"a":1}', '{"b":2}', '', '{"c":3}'])
  t.same(split(text.split('')).lines, whole, 'one character at a time')
  t.same(split([text.slice(0, 5), text.slice(5, 9), text.slice(9)]).lines, whole)
})

t.test('a line over the limit is dropped, the next ones still come', async (t) => {
  const r = split(['x'.repeat(50), 'y'.repeat(50), '\nshort\n', 'z'.repeat(200)], 64)
  t.same(r.lines, ['short'])
  t.equal(r.dropped, 2)
})

t.test('a long text without newlines keeps memory bounded and ends in one pass', async (t) => {
  const lines: string[] = []
  const s = createLineSplitter((l) => lines.push(l), 1024)
  const chunk = 'a'.repeat(64 * 1024)
  for (let i = 0; i < 160; i++) s.push(chunk) // 10 MB
  s.push('\nend\n')
  s.end()
  t.same(lines, ['end'])
  t.equal(s.dropped, 1)
})
