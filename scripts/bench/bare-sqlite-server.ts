/**
 * A second, informative baseline for idle memory: bare Fastify answering the given JSON read from a SQLite
 * file per request (better-sqlite3, WAL, one table, one prepared statement), nothing else. The aim is
 * against bare Fastify alone; this one shows what the database engine itself holds at idle.
 * Prints its port. Usage: node bare-sqlite-server.js <database file> '<json>'
 */
import Database from 'better-sqlite3'
import Fastify from 'fastify'

const db = new Database(process.argv[2] ?? ':memory:')
db.pragma('journal_mode = WAL')
db.exec('CREATE TABLE IF NOT EXISTS bare (id TEXT PRIMARY KEY, body TEXT NOT NULL)')
db.prepare('INSERT OR REPLACE INTO bare (id, body) VALUES (?, ?)').run('x', process.argv[3] ?? '{"data":[]}')
const read = db.prepare<[string], string>('SELECT body FROM bare WHERE id = ?').pluck()

const app = Fastify({ logger: false })
app.get('/bare', async (_request, reply) => reply.type('application/json').send(read.get('x')))
app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  const address = app.server.address() as { port: number }
  process.stdout.write(`${address.port}\n`)
})
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
