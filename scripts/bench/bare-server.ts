/**
 * The baseline: bare Fastify answering the same JSON the daemon answers, from memory, nothing else.
 * `node bare-server.js '<json>'` answers that JSON at /bare; `node bare-server.js @<file>` reads a
 * file of `{ "<id>": <answer>, ... }` and answers each at /bare/<id> (404 for another id), as the
 * daemon's GET /notes/:id does over many notes. Prints its port.
 */
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const arg = process.argv[2] ?? '{"data":[]}'
const answers = new Map<string, unknown>(
  arg.startsWith('@') ? Object.entries(JSON.parse(readFileSync(arg.slice(1), 'utf8')) as Record<string, unknown>) : [],
)
const single = arg.startsWith('@') ? undefined : (JSON.parse(arg) as unknown)
const app = Fastify({ logger: false })
app.get('/bare', async () => single ?? answers.values().next().value)
app.get<{ Params: { id: string } }>('/bare/:id', async (request, reply) => answers.get(request.params.id) ?? reply.code(404).send())
app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  const address = app.server.address() as { port: number }
  process.stdout.write(`${address.port}\n`)
})
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
