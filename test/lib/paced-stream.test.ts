import t from 'tap'
import { pacedChunks, pacedSteps, pacedStream, runSteps } from '../../lib/paced-stream.js'

t.test('pieces come out whole, in order, gathered into chunks', async (t) => {
  const pieces = ['a', 'é'.repeat(10), new Uint8Array([0x7a, 0x7a]), '']
  const out: Buffer[] = []
  for await (const chunk of pacedStream(pieces, { chunk: 4 })) out.push(chunk as Buffer)
  t.equal(Buffer.concat(out).toString(), `a${'é'.repeat(10)}zz`)
  t.ok(out.length >= 2, 'split into chunks of about the chunk size')
})

t.test('the next piece is asked for only when the reader wants more', async (t) => {
  let made = 0
  function* pieces() {
    for (let i = 0; i < 100; i++) {
      made++
      yield 'x'.repeat(1024)
    }
  }
  const chunks = pacedChunks(pieces(), { chunk: 1024 })
  await chunks.next()
  t.ok(made <= 2, `one chunk read made ${made} pieces`)
  for await (const _ of chunks) void _
  t.equal(made, 100)
})

t.test('other work runs while a long stream is produced', async (t) => {
  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  function* slow() {
    for (let i = 0; i < 20; i++) {
      const until = performance.now() + 5
      while (performance.now() < until);
      yield 'piece'
    }
  }
  for await (const _ of pacedChunks(slow(), { sliceMs: 10 })) void _
  clearInterval(timer)
  t.ok(ticks > 0, 'the timer fired while the 100 ms of pieces were made')
})

t.test('streams paced at once share a slice a turn, not a slice each', async (t) => {
  // Each piece takes 4 ms; with a 10 ms slice one stream alone makes 3 pieces a turn. Four at once
  // make about a slice between them (the first to resume its 3, the others one piece each), where
  // a slice each would be 12 pieces between two turns of the loop.
  let pieces = 0
  let most = 0
  let sinceTick = 0
  const timer = setInterval(() => {
    most = Math.max(most, sinceTick)
    sinceTick = 0
  }, 1)
  function* busy() {
    for (let i = 0; i < 15; i++) {
      const until = performance.now() + 4
      while (performance.now() < until);
      pieces++
      sinceTick++
      yield 'piece'
    }
  }
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for await (const _ of pacedChunks(busy(), { sliceMs: 10, chunk: 1 })) void _
    }),
  )
  clearInterval(timer)
  t.equal(pieces, 60, 'every piece was made')
  t.ok(most <= 7, `at most ${most} pieces between two turns of the loop`)
})

t.test('work written as steps: done at once, or paced', async (t) => {
  function* steps(): Generator<void, number, void> {
    let sum = 0
    for (let i = 1; i <= 5; i++) {
      sum += i
      yield
    }
    return sum
  }
  t.equal(runSteps(steps()), 15)
  t.equal(await pacedSteps(steps()), 15)
})
