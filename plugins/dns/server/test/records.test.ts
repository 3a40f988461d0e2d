import t from 'tap'
import { dig } from './dig.js'
import { startServer } from './start.js'
import { exampleZone } from './zone.js'

// Every record type of the spec's table, as the real dig sees it, over UDP and TCP.
const cases: [string, string, string[]][] = [
  ['www.example.test', 'A', ['192.0.2.10']],
  ['www.example.test', 'AAAA', ['2001:db8::10']],
  ['alias.example.test', 'CNAME', ['www.example.test.']],
  ['example.test', 'NS', ['ns1.example.test.', 'ns2.example.test.']],
  ['example.test', 'MX', ['10 mail.example.test.', '20 mx2.example.test.']],
  ['example.test', 'TXT', ['"v=spf1 mx -all"']],
  ['_sip._tcp.example.test', 'SRV', ['1 5 5060 mail.example.test.']],
  ['example.test', 'CAA', ['0 issue "letsencrypt.org"']],
  ['example.test', 'SOA', ['ns1.example.test. hostmaster.example.test. 2026112201 3600 600 1209600 300']],
]

t.test('every record type answers over UDP and TCP', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  for (const transport of [[], ['+tcp']]) {
    for (const [name, type, expected] of cases) {
      const res = await dig(port, name, type, transport)
      const label = `${name} ${type} ${transport.join(' ') || '+udp'}`
      t.equal(res.status, 'NOERROR', label)
      t.ok(res.flags.includes('aa'), `${label}: AA set`)
      const got = res.answer
        .filter((r) => r.type === type)
        .map((r) => r.data)
        .sort()
      t.same(got, [...expected].sort(), `${label}: rdata`)
    }
  }
})

t.test('long TXT is split into 255-byte character-strings', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  const res = await dig(port, 'long.example.test', 'TXT')
  t.equal(res.answer.length, 1)
  t.equal(res.answer[0].data, `"${'a'.repeat(255)}" "${'a'.repeat(45)}"`)
})

t.test('TTLs are the stored ones', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  t.equal((await dig(port, 'www.example.test', 'A')).answer[0].ttl, 300)
  t.equal((await dig(port, 'example.test', 'NS')).answer[0].ttl, 3600)
})

t.test('an unencodable record is skipped with a warning, the rest is served', async (t) => {
  const zone = exampleZone()
  zone.records.push(
    { name: 'bad.example.test', type: 'A', ttl: 300, content: 'not-an-ip', priority: null },
    { name: 'bad.example.test', type: 'CAA', ttl: 300, content: '0 tagthatiswaytoolong x', priority: null },
    { name: 'bad.example.test', type: 'MX', ttl: 300, content: 'mail.example.test', priority: null },
    { name: 'bad.example.test', type: 'SRV', ttl: 300, content: '5 notaport host.example.test', priority: 1 },
    { name: 'www.elsewhere.test', type: 'A', ttl: 300, content: '192.0.2.1', priority: null },
  )
  const { port, log } = await startServer(t, [zone])
  const logged = log.lines.join('\n')
  t.match(logged, /bad\.example\.test A skipped: not an IPv4 address/)
  t.notMatch(logged, /not-an-ip|tagthatiswaytoolong|notaport/, "the records' content is the user's data: it stays out of the log")
  t.match(logged, /bad\.example\.test CAA skipped: needs 'flags tag value'/)
  t.match(logged, /bad\.example\.test MX skipped: needs a host and a priority/)
  t.match(logged, /bad\.example\.test SRV skipped/)
  t.match(logged, /www\.elsewhere\.test A skipped: not a valid name of zone example\.test/)
  t.equal((await dig(port, 'bad.example.test', 'CAA')).answer.length, 0)
  t.equal((await dig(port, 'bad.example.test', 'A')).answer.length, 0)
  t.equal((await dig(port, 'www.example.test', 'A')).answer[0].data, '192.0.2.10')
})

t.test('log lines name records, never carry their content, and stay short whatever the zone holds', async (t) => {
  const zone = exampleZone()
  const secret = 'my secret note '.repeat(4500)
  zone.records.push(
    { name: 'txt.example.test', type: 'TXT', ttl: 300, content: secret, priority: null },
    { name: `${'a'.repeat(60)}.${'b'.repeat(50_000)}.example.test`, type: 'A', ttl: 300, content: '192.0.2.1', priority: null },
    { name: 'ctl\u001b[31m.example.test', type: 'A', ttl: 300, content: 'my secret', priority: null },
  )
  const { log } = await startServer(t, [zone])
  const logged = log.lines.join('\n')
  t.notMatch(logged, /my secret/, 'no content in any line')
  t.match(logged, /txt\.example\.test TXT skipped/, 'the bad TXT is named')
  t.match(logged, /aaaa.*skipped|skipped/, 'the long name is logged')
  t.notMatch(logged, /\u001b/, 'control characters are not written')
  for (const line of log.lines) t.ok(line.length <= 600, `a line of ${line.length} characters`)
})
