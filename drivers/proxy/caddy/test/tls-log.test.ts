import { createSocket } from 'node:dgram'
import t from 'tap'
import { listenTlsLog } from '../tls-log.js'

/**
 * Caddy's TLS log as it arrives from its `net` writer: one JSON entry per UDP datagram on Hearth's
 * loopback port. The entries below are the shape Caddy 2.6 logs (tls.obtain).
 */
const failed = (name: string, error: string) =>
  JSON.stringify({ level: 'error', logger: 'tls.obtain', msg: 'could not get certificate from issuer', identifier: name, error })
const obtained = (name: string) =>
  JSON.stringify({ level: 'info', logger: 'tls.obtain', msg: 'certificate obtained successfully', identifier: name })

t.test('failures per name from datagrams; a later success clears one; anything else is ignored', async (t) => {
  const log = await listenTlsLog()
  t.teardown(() => log.close())
  t.match(log.address, /^udp\/127\.0\.0\.1:\d+$/)
  const port = Number(log.address.split(':').pop())
  const sender = createSocket('udp4')
  t.teardown(() => sender.close())
  const send = (text: string) => new Promise<void>((resolve) => sender.send(Buffer.from(`${text}\n`), port, '127.0.0.1', () => resolve()))
  const settled = async (expect: number) => {
    for (let i = 0; i < 100 && log.errors().size !== expect; i++) await new Promise((r) => setTimeout(r, 20))
  }

  await send(failed('a.example.net', 'dial tcp 127.0.0.1:1: connect: connection refused'))
  await send(failed('b.example.net', 'x'.repeat(2000)))
  await send('not json at all')
  await send(JSON.stringify({ identifier: 42, error: 'a number is no name', msg: 'could not get certificate from issuer' }))
  await send('null')
  await settled(2)
  t.same([...log.errors().keys()].sort(), ['a.example.net', 'b.example.net'])
  t.match(log.errors().get('a.example.net'), /connection refused/)
  t.equal(log.errors().get('b.example.net')?.length, 500, 'a long reason is cut to 500 characters')

  await send(obtained('a.example.net'))
  await settled(1)
  t.same([...log.errors().keys()], ['b.example.net'], 'obtained since: no longer an error')
})

t.test('at most 1024 names are remembered, the oldest dropped first', async (t) => {
  const log = await listenTlsLog()
  t.teardown(() => log.close())
  const port = Number(log.address.split(':').pop())
  const sender = createSocket('udp4')
  t.teardown(() => sender.close())
  // In batches, each waited for: a burst larger than the socket's receive buffer is dropped by the kernel.
  for (let batch = 0; batch < 1100; batch += 50) {
    for (let i = batch; i < batch + 50; i++)
      await new Promise<void>((resolve) => sender.send(Buffer.from(failed(`n${i}.example.net`, 'no')), port, '127.0.0.1', () => resolve()))
    const last = `n${batch + 49}.example.net`
    for (let i = 0; i < 100 && !log.errors().has(last); i++) await new Promise((r) => setTimeout(r, 10))
  }
  t.ok(log.errors().size <= 1024, `${log.errors().size} names kept`)
  t.ok(log.errors().has('n1099.example.net'), 'the newest is kept')
  t.notOk(log.errors().has('n0.example.net'), 'the oldest went first')
})
