/**
 * The baseline: a bare Fastify route answering the given JSON, nothing else.
 * Prints its port. Usage: node bare-server.js '<json>'
 */
import Fastify from 'fastify'

const body = JSON.parse(process.argv[2] ?? '{"data":[]}')
const app = Fastify({ logger: false })
app.get('/bare', async () => body)
app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  const address = app.server.address() as { port: number }
  process.stdout.write(`${address.port}\n`)
})
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
