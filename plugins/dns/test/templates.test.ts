import t from 'tap'
import { build, owner } from '../../../test/helper.js'
import { dig, dnsApi, freePort } from './support.js'

/** Each template: its variables, the records it makes (answered by dig), and all-or-none application. */
const cases: Array<{ template: string; variables: Record<string, string>; expect: Array<[string, string, string, number | null]> }> = [
  {
    template: 'mail-full',
    variables: { domain: 'tpl.test', server_ip: '192.0.2.25', dkim_key: 'MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC' },
    expect: [
      ['A', 'mail', '192.0.2.25', null],
      ['MX', '@', 'mail.tpl.test', 10],
      ['TXT', '@', 'v=spf1 mx a:mail.tpl.test -all', null],
      ['TXT', 'default._domainkey', 'v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC', null],
      ['TXT', '_dmarc', 'v=DMARC1; p=quarantine; rua=mailto:postmaster@tpl.test', null],
    ],
  },
  {
    template: 'mail-mx-only',
    variables: { domain: 'tpl.test', mail_host: 'mx.provider.example' },
    expect: [
      ['MX', '@', 'mx.provider.example', 10],
      ['TXT', '@', 'v=spf1 mx -all', null],
    ],
  },
  { template: 'expose-service', variables: { subdomain: 'cloud', target_ip: '192.0.2.80' }, expect: [['A', 'cloud', '192.0.2.80', null]] },
  {
    template: 'caa-letsencrypt',
    variables: { domain: 'tpl.test' },
    expect: [
      ['CAA', '@', '0 issue "letsencrypt.org"', null],
      ['CAA', '@', '0 issuewild "letsencrypt.org"', null],
      ['CAA', '@', '0 iodef "mailto:hostmaster@tpl.test"', null],
    ],
  },
  {
    template: 'verify-google',
    variables: { token: 'abc123-google' },
    expect: [['TXT', '@', 'google-site-verification=abc123-google', null]],
  },
  { template: 'verify-microsoft', variables: { token: 'ms12345678' }, expect: [['TXT', '@', 'MS=ms12345678', null]] },
]

t.test('the six templates', async (t) => {
  const port = await freePort()
  const app = await build(t, {
    env: { HEARTH_DNS_PORT: String(port), HEARTH_DNS_HOST: '127.0.0.1' },
    run: async (cmd) => ({ code: 127, stdout: '', stderr: `${cmd}: not here` }),
  })
  const dns = dnsApi(app, (await owner(app)).token)
  const list = (await dns.call('GET', '/templates')).json()
  t.same(
    Object.fromEntries(list.data.map((x: { name: string; required_variables: string[] }) => [x.name, x.required_variables])),
    {
      'mail-full': ['domain', 'server_ip', 'dkim_key'],
      'mail-mx-only': ['domain', 'mail_host'],
      'expose-service': ['subdomain', 'target_ip'],
      'caa-letsencrypt': ['domain'],
      'verify-google': ['token'],
      'verify-microsoft': ['token'],
    },
    'the required variables docs/api.md lists',
  )
  t.match(list.data[0].records[0].content, /\{\{server_ip\}\}/, 'records shown with placeholders')

  for (const c of cases) {
    t.test(c.template, async (t) => {
      const zone = await dns.zone(`${c.template}.tpl.test`)
      for (const missing of Object.keys(c.variables)) {
        const { [missing]: _gone, ...rest } = c.variables
        const res = await dns.call('POST', `/zones/${zone.id}/apply-template`, { template: c.template, variables: rest })
        t.equal(res.statusCode, 400, `without ${missing} → 400`)
        t.same(res.json().error.details, { field: `variables.${missing}`, constraint: 'required' }, `names ${missing}`)
      }
      const res = await dns.call('POST', `/zones/${zone.id}/apply-template`, { template: c.template, variables: c.variables })
      t.equal(res.statusCode, 201, res.body)
      const made = res
        .json()
        .data.map((r: { type: string; name: string; content: string; priority: number | null }) => [r.type, r.name, r.content, r.priority])
      t.same(made, c.expect, 'records substituted')
      const first = c.expect[0] as [string, string, string, number | null]
      const name = first[1] === '@' ? zone.zone : `${first[1]}.${zone.zone}`
      t.ok((await dig(port, name, first[0])).answers.length > 0, `${first[0]} ${name} answered by the server`)
      const again = await dns.call('POST', `/zones/${zone.id}/apply-template`, { template: c.template, variables: c.variables })
      t.equal(again.statusCode, 409, 'applying twice conflicts')
      t.equal((await dns.call('GET', `/zones/${zone.id}`)).json().data.records_count, 2 + c.expect.length, 'and adds nothing')
    })
  }

  t.test('all or none', async (t) => {
    const zone = await dns.zone('atomic.tpl.test')
    const bad = await dns.call('POST', `/zones/${zone.id}/apply-template`, {
      template: 'mail-full',
      variables: { domain: 'atomic.tpl.test', server_ip: 'not-an-ip', dkim_key: 'k' },
    })
    t.equal(bad.statusCode, 400)
    t.same(bad.json().error.details, { field: 'records[0].content', constraint: 'ipv4' }, 'the invalid resulting record is named')
    await dns.record(zone.id, { type: 'CNAME', name: '_dmarc', content: 'dmarc.elsewhere.example' })
    const clash = await dns.call('POST', `/zones/${zone.id}/apply-template`, {
      template: 'mail-full',
      variables: { domain: 'atomic.tpl.test', server_ip: '192.0.2.1', dkim_key: 'k' },
    })
    t.equal(clash.statusCode, 422, 'the last record clashes with a CNAME')
    const records = (await dns.call('GET', `/zones/${zone.id}/records`)).json().data
    t.same(records.map((r: { type: string }) => r.type).sort(), ['CNAME', 'NS', 'SOA'], 'none of the template was written')
    t.equal((await dig(port, `mail.${zone.zone}`, 'A')).status, 'NXDOMAIN', 'nothing reached the server either')
    const unknown = await dns.call('POST', `/zones/${zone.id}/apply-template`, { template: 'nope', variables: {} })
    t.equal(unknown.statusCode, 400)
    t.equal(unknown.json().error.details.field, 'template')
  })
})
