import t from 'tap'
import { dig } from './dig.js'
import { startServer } from './start.js'
import { exampleZone } from './zone.js'

t.test('EDNS0: OPT echoed only when the query has one', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  const withEdns = await dig(port, 'www.example.test', 'A')
  t.match(withEdns.edns, /version: 0, flags:; udp: 1232/, 'OPT in the reply advertising 1232')
  const without = await dig(port, 'www.example.test', 'A', ['+noedns'])
  t.equal(without.edns, null, 'no OPT without EDNS in the query')
  t.equal(without.answer[0]?.data, '192.0.2.10')
  const nx = await dig(port, 'nope.example.test', 'A', ['+bufsize=4096'])
  t.equal(nx.status, 'NXDOMAIN')
  t.ok(nx.edns, 'negative answers carry OPT too')
  // dig retries with version 0 after BADVERS; the first reply is what we check.
  const badvers = await dig(port, 'www.example.test', 'A', ['+edns=1', '+noednsnegotiation'])
  t.equal(badvers.status, 'BADVERS', 'unknown EDNS version → BADVERS')
})

t.test('truncation over UDP follows the client size; TCP is never truncated', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  // big.example.test: 40 TXT strings, ~2.8 kB on the wire.
  const plain = await dig(port, 'big.example.test', 'TXT', ['+noedns', '+ignore'])
  t.ok(plain.flags.includes('tc'), 'over 512 without EDNS → TC')
  t.equal(plain.answer.length, 0, 'truncated reply carries no partial answer')
  t.ok(plain.flags.includes('aa'))
  const small = await dig(port, 'big.example.test', 'TXT', ['+bufsize=1232', '+ignore'])
  t.ok(small.flags.includes('tc'), 'over the advertised 1232 → TC')
  t.ok(small.edns, 'TC reply keeps OPT')
  const large = await dig(port, 'big.example.test', 'TXT', ['+bufsize=4096', '+ignore'])
  t.ok(large.flags.includes('tc'), 'over 1232 → TC even when the client advertises 4096 (no amplification)')
  t.equal(large.answer.length, 0)
  const tcp = await dig(port, 'big.example.test', 'TXT', ['+noedns', '+tcp'])
  t.notOk(tcp.flags.includes('tc'))
  t.equal(tcp.answer.length, 40, 'TCP returns everything')
  const retried = await dig(port, 'big.example.test', 'TXT', ['+noedns'])
  t.equal(retried.answer.length, 40, 'dig falls back to TCP after TC and gets it all')
  const fits = await dig(port, 'www.example.test', 'A', ['+noedns', '+ignore'])
  t.notOk(fits.flags.includes('tc'), 'small answers are not truncated')
})
