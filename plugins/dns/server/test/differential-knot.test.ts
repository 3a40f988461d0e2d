import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { auth, build, owner } from '../../../../test/helper.js'
import { dnsApi, freePort } from '../../test/support.js'
import { splitTxt } from '../rdata.js'

/**
 * Differential test against a reference server. One zone is made through Hearth's API,
 * the same records are served by Knot DNS, and a few thousand generated queries go to both with
 * `kdig` over UDP and TCP, with and without EDNS, names in mixed case, every type the API accepts,
 * ANY and unknown types. rcode, flags and every section (as sets, TTLs included) must agree, except
 * for the differences listed in ALLOWED, each with the RFC that allows it.
 */

const ZONE = 'diff.test'

/** [name relative to the zone, type, content, priority]: every shape of the lookup logic. */
const RECORDS: Array<[string, string, string, number | null]> = [
  ['@', 'A', '192.0.2.1', null],
  ['@', 'MX', 'mail.diff.test', 10],
  ['@', 'MX', 'mx2.diff.test', 20],
  ['@', 'TXT', 'v=spf1 mx -all', null],
  ['@', 'CAA', '0 issue "letsencrypt.org"', null],
  ['ns1', 'A', '192.0.2.53', null],
  ['www', 'A', '192.0.2.10', null],
  ['www', 'A', '192.0.2.11', null],
  ['www', 'AAAA', '2001:db8::10', null],
  ['mail', 'A', '192.0.2.25', null],
  ['mail', 'AAAA', '2001:db8::25', null],
  ['mx2', 'A', '192.0.2.26', null],
  ['alias', 'CNAME', 'www.diff.test', null],
  ['chain', 'CNAME', 'alias.diff.test', null],
  ['dangling', 'CNAME', 'missing.diff.test', null],
  ['outside', 'CNAME', 'www.example.invalid', null],
  ['a.b.deep', 'A', '192.0.2.99', null],
  ['_sip._tcp', 'SRV', '5 5060 mail.diff.test', 1],
  ['long', 'TXT', `k=${'x'.repeat(300)}`, null],
  ['dkim', 'TXT', '"v=DKIM1; k=rsa; " "p=MIIBIjAN"', null],
  ['sub', 'NS', 'ns.sub.diff.test', null],
  ['ns.sub', 'A', '192.0.2.77', null],
  ['into-sub', 'CNAME', 'host.sub.diff.test', null],
  ['*.wild', 'A', '192.0.2.80', null],
  ['*.wild', 'MX', 'mail.diff.test', 10],
  ['*.cn', 'CNAME', 'www.diff.test', null],
  ['to-wild', 'CNAME', 'x.wild.diff.test', null],
  ...Array.from({ length: 30 }, (_, i): [string, string, string, number | null] => [
    'big',
    'TXT',
    `${String(i).padStart(2, '0')}-${'z'.repeat(57)}`,
    null,
  ]),
]

const NAMES = [
  '',
  'www',
  'WwW',
  'mail',
  'mx2',
  'ns1',
  'alias',
  'ALIAS',
  'chain',
  'dangling',
  'outside',
  'deep',
  'b.deep',
  'a.b.deep',
  'x.a.b.deep',
  '_sip._tcp',
  '_tcp',
  'long',
  'dkim',
  'sub',
  'ns.sub',
  'host.sub',
  'a.b.sub',
  'into-sub',
  'wild',
  'x.wild',
  'Deeper.X.wild',
  'x.cn',
  'to-wild',
  'big',
  'nothing',
  'no.such.name',
]
const TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'SOA', 'ANY', 'PTR', 'DS', 'TYPE65']
const VARIANTS = [
  { transport: '+notcp', edns: '+noedns' },
  { transport: '+notcp', edns: '+bufsize=4096' },
  { transport: '+tcp', edns: '+noedns' },
  { transport: '+tcp', edns: '+bufsize=1232' },
]

interface Reply {
  question: string
  status: string
  flags: string[]
  sections: Record<'ANSWER' | 'AUTHORITY' | 'ADDITIONAL', string[]>
}

/** kdig's text output, one block per query: header, flags, and the record lines of each section. */
function parseKdig(out: string): Reply[] {
  return out
    .split(';; ->>HEADER<<-')
    .slice(1)
    .map((block) => {
      const sections: Reply['sections'] = { ANSWER: [], AUTHORITY: [], ADDITIONAL: [] }
      const reply: Reply = { question: '', status: /status: (\w+)/.exec(block)?.[1] ?? '', flags: [], sections }
      reply.flags = (/;; Flags:([^;]*);/.exec(block)?.[1] ?? '').trim().split(/\s+/).filter(Boolean).sort()
      type Section = keyof Reply['sections'] | 'QUESTION'
      let section: Section | null = null
      for (const line of block.split('\n')) {
        const head = /^;; (QUESTION|ANSWER|AUTHORITY|ADDITIONAL) SECTION:/.exec(line)
        if (head) section = head[1] as Section
        else if (line.trim() === '' || (line.startsWith(';;') && section !== 'QUESTION')) section = line.trim() === '' ? null : section
        else if (section === 'QUESTION')
          reply.question = line
            .replace(/^;;\s*/, '')
            .split(/\s+/)
            .filter(Boolean)
            .join(' ')
            .toLowerCase()
        else if (section !== null) {
          const [owner, ttl, , type, ...data] = line.split(/\s+/)
          sections[section as keyof Reply['sections']].push(`${owner?.toLowerCase()} ${ttl} ${type} ${data.join(' ')}`)
        }
      }
      for (const list of Object.values(reply.sections)) list.sort()
      return reply
    })
}

function kdig(port: number, args: string[]): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'kdig',
      [`@127.0.0.1`, '-p', String(port), '+norec', '+ignore', '+time=3', '+retry=1', ...args],
      { maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => (err && !stdout ? reject(err) : resolve(parseKdig(stdout))),
    )
  })
}

/**
 * Differences the RFCs allow, each a predicate over one query's pair of replies. A difference not
 * listed here fails the test.
 */
const ALLOWED: Array<{ why: string; applies: (q: { type: string; udp: boolean }, hearth: Reply, knot: Reply) => boolean }> = [
  {
    why: 'RFC 2181 9 and RFC 1035 4.2.1: a truncated UDP answer may carry any part of the records (Hearth sends none; the client retries over TCP)',
    applies: (q, h, k) => q.udp && h.flags.includes('tc') && k.flags.includes('tc'),
  },
  {
    why: 'RFC 6891 7 and docs/api.md: Hearth caps UDP answers at 1,232 bytes whatever the client offers, so an answer Knot fits in 4096 may be TC here',
    applies: (q, h) => q.udp && h.flags.includes('tc') && h.sections.ANSWER.length === 0,
  },
]

t.test('Hearth and Knot DNS give the same answers to a few thousand queries', async (t) => {
  t.setTimeout(240_000)
  const dnsPort = await freePort()
  const app = await build(t, { env: { HEARTH_DNS_PORT: String(dnsPort), HEARTH_DNS_HOST: '127.0.0.1', HEARTH_DNS_RATE_LIMIT: '0' } })
  const dns = dnsApi(app, (await owner(app)).token)
  const zone = await dns.zone(ZONE)
  for (const [name, type, content, priority] of RECORDS) {
    const res = await dns.record(zone.id, {
      type,
      name,
      content,
      ttl: type === 'NS' ? 3600 : 300,
      ...(priority === null ? {} : { priority }),
    })
    t.equal(res.statusCode, 201, `${name} ${type} ${res.statusCode === 201 ? '' : res.body}`)
  }

  // The same records, as the API now holds them, in a zone file for Knot.
  const held = (await app.inject({ method: 'GET', url: `/api/v1/dns/zones/${zone.id}/records`, headers: auth(app.systemToken) })).json()
    .data as Array<{ name: string; type: string; content: string; ttl: number; priority: number | null }>
  const host = (h: string) => (h.endsWith('.') ? h : `${h}.`)
  const lines = held.map((r) => {
    const rdata =
      r.type === 'SOA'
        ? (([m, n, ...rest]) => [host(m as string), host(n as string), ...rest].join(' '))(r.content.split(' '))
        : r.type === 'CNAME' || r.type === 'NS'
          ? host(r.content)
          : r.type === 'MX'
            ? `${r.priority} ${host(r.content)}`
            : r.type === 'SRV'
              ? (([w, p, target]) => `${r.priority} ${w} ${p} ${host(target as string)}`)(r.content.split(' '))
              : r.type === 'TXT'
                ? splitTxt(r.content)
                    .map((s) => `"${s.toString('utf8').replace(/[\\"]/g, (c) => `\\${c}`)}"`)
                    .join(' ')
                : r.content
    return `${r.name === '@' ? `${ZONE}.` : `${r.name}.${ZONE}.`} ${r.ttl} IN ${r.type} ${rdata}`
  })
  const dir = mkdtempSync(join(tmpdir(), 'hearth-knot-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, `${ZONE}.zone`), `${lines.join('\n')}\n`)
  const knotPort = await freePort()
  writeFileSync(
    join(dir, 'knot.conf'),
    [
      'server:',
      `    rundir: "${dir}"`,
      `    listen: 127.0.0.1@${knotPort}`,
      '    udp-workers: 1',
      '    tcp-workers: 1',
      '    background-workers: 1',
      'database:',
      `    storage: "${dir}"`,
      'template:',
      '  - id: default',
      `    storage: "${dir}"`,
      '    file: "%s.zone"',
      'zone:',
      `  - domain: ${ZONE}`,
      '',
    ].join('\n'),
  )
  const knot = spawn('knotd', ['-c', join(dir, 'knot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let knotLog = ''
  knot.stderr.on('data', (c: Buffer) => (knotLog += c.toString()))
  t.teardown(() => void knot.kill('SIGKILL'))
  for (let i = 0; i < 50; i++) {
    const [soa] = await kdig(knotPort, [ZONE, 'SOA']).catch(() => [])
    if (soa?.status === 'NOERROR') break
    await new Promise((r) => setTimeout(r, 100))
    if (i === 49) throw new Error(`knotd did not start (is Debian's knot installed?): ${knotLog}`)
  }

  let compared = 0
  const differences: string[] = []
  const allowedSeen = new Map<string, number>()
  for (const variant of VARIANTS) {
    const queries = NAMES.flatMap((n) => TYPES.map((type) => ({ name: n ? `${n}.${ZONE}` : ZONE, type })))
    const args = queries.flatMap((q) => [q.name, q.type, variant.transport, variant.edns])
    const [hearth, reference] = await Promise.all([kdig(dnsPort, args), kdig(knotPort, args)])
    t.equal(hearth.length, queries.length, `Hearth answered every ${variant.transport} ${variant.edns} query`)
    t.equal(reference.length, queries.length, `Knot answered every ${variant.transport} ${variant.edns} query`)
    queries.forEach((q, i) => {
      const h = hearth[i] as Reply
      const k = reference[i] as Reply
      compared++
      const same = h.status === k.status && h.flags.join() === k.flags.join() && JSON.stringify(h.sections) === JSON.stringify(k.sections)
      if (same) return
      const allowed = ALLOWED.find((a) => a.applies({ type: q.type, udp: variant.transport === '+notcp' }, h, k))
      if (allowed) return void allowedSeen.set(allowed.why, (allowedSeen.get(allowed.why) ?? 0) + 1)
      differences.push(
        `${q.name} ${q.type} ${variant.transport} ${variant.edns}\n  hearth: ${h.status} [${h.flags}] ${JSON.stringify(h.sections)}\n  knot:   ${k.status} [${k.flags}] ${JSON.stringify(k.sections)}`,
      )
    })
  }
  t.ok(compared >= 1500, `${compared} queries compared`)
  for (const [why, n] of allowedSeen) t.comment(`allowed (${n}): ${why}`)
  t.same(differences, [], `${differences.length} unexplained differences`)
})
