import t from 'tap'
import { bench, importInto } from './records-app.js'

/**
 * A file that is one long chain of subtasks (each VTODO's RELATED-TO names the one before it):
 * imported in as many waves as tasks nest, each looking only at the subtasks of what the wave before
 * made. The old import walked every waiting task, with a database look-up each, once per level: a
 * chain of 1,000 held the daemon's event loop for minutes (160 s measured), past tap's timeout here.
 * Tasks nest at most 64 deep: the task past that is refused and those below it come in unlinked,
 * keeping their RELATED-TO lines.
 */
const todo = (uid: string, parent?: string) =>
  `BEGIN:VTODO\r\nUID:${uid}\r\nDTSTAMP:20261128T000000Z\r\nSUMMARY:${uid}\r\n${parent ? `RELATED-TO:${parent}\r\n` : ''}END:VTODO\r\n`
const vcal = (body: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${body}END:VCALENDAR\r\n`
const N = 1000

t.test('a chain of 1,000 subtasks imports, linked 64 deep', async (t) => {
  const b = await bench(t)
  // Tasks the member already has: each look-up of a parent's UID among them costs more.
  const flat = Array.from({ length: 2 * N }, (_, i) => todo(`f${i}`)).join('')
  t.equal((await importInto(b, 'tasks', 'flat.ics', vcal(flat))).data.imported, 2 * N)
  const chain = Array.from({ length: N }, (_, i) => todo(`c${i}`, i ? `c${i - 1}` : undefined)).join('')
  const res = await importInto(b, 'tasks', 'chain.ics', vcal(chain))
  t.equal(res.status, 200)
  t.equal(res.data.imported, N - 1)
  t.same(
    res.data.failed.map((f) => [f.index, (f.details as { constraint?: string } | undefined)?.constraint]),
    [[65, 'depth']],
  )
  const byTitle = new Map<string, { id: string; parent_id: string | null }>()
  for (let offset = 0; offset < 3 * N; offset += 100) {
    const page = await b.call('GET', `/tasks?limit=100&offset=${offset}`)
    for (const task of page.body.data) byTitle.set(task.title, task)
  }
  t.equal(byTitle.get('c64')?.parent_id, byTitle.get('c63')?.id, 'linked to its parent 64 deep')
  t.equal(byTitle.get('c66')?.parent_id, null, 'below the refused task: unlinked')
  t.equal(byTitle.get('c999')?.parent_id, null)
})

t.test('the same chain written children first imports alike', async (t) => {
  const b = await bench(t)
  const chain = Array.from({ length: N }, (_, i) => todo(`c${N - 1 - i}`, N - 1 - i ? `c${N - 2 - i}` : undefined)).join('')
  const res = await importInto(b, 'tasks', 'chain.ics', vcal(chain))
  t.equal(res.status, 200)
  t.equal(res.data.imported, N - 1)
  t.equal(res.data.failed.length, 1)
})
