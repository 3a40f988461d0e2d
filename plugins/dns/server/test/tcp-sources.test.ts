import net from 'node:net'
import t from 'tap'
import { dig } from './dig.js'
import { startServer } from './start.js'
import { exampleZone } from './zone.js'

/**
 * One source opening TCP connections to port 53 and sending nothing took all 256 of them: everyone
 * else's TCP queries were reset until the idle reap, and an attacker reconnecting at once kept them.
 * Now a source (an IPv4 address, an IPv6 /64) holds at most 32. Each loopback address is another
 * source to the server, as two machines would be; the answers asserted come from the real `dig`.
 */

function connectFrom(port: number, from: string): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from })
    socket.on('error', () => {})
    socket.once('connect', () => resolve(socket))
    socket.once('close', () => resolve(socket))
  })
}

t.test("one source cannot take every TCP connection: another source's dig +tcp is answered", async (t) => {
  // A long idle time: the attacker's connections are not reaped while the test runs.
  const { server, port } = await startServer(t, [exampleZone()], { tcpIdleMs: 60_000 })
  const attack = await Promise.all(Array.from({ length: 300 }, () => connectFrom(port, '127.0.0.1')))
  t.teardown(() => attack.forEach((s) => s.destroy()))
  await new Promise((resolve) => setTimeout(resolve, 500))

  const held = attack.filter((s) => !s.destroyed).length
  t.equal(held, 32, `the source holds 32 connections (it held all 256), ${300 - held} were closed at once`)
  t.equal(server.status.tcpRefused, 268)

  const other = await dig(port, 'www.example.test', 'A', ['+tcp', '-b', '127.0.0.2'])
  t.equal(other.answer[0]?.data, '192.0.2.10', 'another source is answered over TCP during the attack (it was reset)')
  const udp = await dig(port, 'www.example.test', 'A', ['-b', '127.0.0.2'])
  t.equal(udp.answer[0]?.data, '192.0.2.10', 'and over UDP')

  for (const s of attack) s.destroy()
  await new Promise((resolve) => setTimeout(resolve, 200))
  const again = await dig(port, 'www.example.test', 'A', ['+tcp', '-b', '127.0.0.1'])
  t.equal(again.answer[0]?.data, '192.0.2.10', 'once its connections close, the source is served again')
})

t.test('the share per source is an option; a source under it is never refused', async (t) => {
  const { server, port } = await startServer(t, [exampleZone()], { tcpIdleMs: 60_000, tcpMaxPerSource: 4 })
  const first = await Promise.all(Array.from({ length: 4 }, () => connectFrom(port, '127.0.0.3')))
  t.teardown(() => first.forEach((s) => s.destroy()))
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(first.filter((s) => !s.destroyed).length, 4)
  t.equal(server.status.tcpRefused, 0)
  const results = await Promise.all(['127.0.0.4', '127.0.0.5'].map((from) => dig(port, 'www.example.test', 'A', ['+tcp', '-b', from])))
  t.ok(
    results.every((r) => r.answer[0]?.data === '192.0.2.10'),
    'other sources are answered',
  )
})
