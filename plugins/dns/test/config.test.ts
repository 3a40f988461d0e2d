import t from 'tap'
import { build } from '../../../test/helper.js'

/** A bad DNS setting stops the start with one message naming the variable; nothing half-starts. */
const bad: Array<[Record<string, string>, RegExp]> = [
  [{ HEARTH_DNS_PORT: '70000' }, /HEARTH_DNS_PORT=70000/],
  [{ HEARTH_DNS_PORT: 'fifty-three' }, /HEARTH_DNS_PORT/],
  [{ HEARTH_PUBLIC_IP_SOURCES: 'https://only.one' }, /HEARTH_PUBLIC_IP_SOURCES/],
  [{ HEARTH_DNS_RESOLVERS: 'a:b:c' }, /HEARTH_DNS_RESOLVERS/],
  [{ HEARTH_DDNS_CRON: 'every five minutes' }, /HEARTH_DDNS_CRON=every five minutes is not a valid cron expression/],
  [{ HEARTH_DNS_NS_POLL_CRON: '99 * * * *' }, /HEARTH_DNS_NS_POLL_CRON/],
]

for (const [env, message] of bad) {
  t.test(`refused: ${JSON.stringify(env)}`, async (t) => {
    await t.rejects(build(t, { env }), message)
  })
}

t.test('good values start', async (t) => {
  const app = await build(t, {
    env: {
      HEARTH_DNS_RESOLVERS: '[::1]:5353,127.0.0.1',
      HEARTH_DDNS_CRON: '*/30 * * * * *',
      HEARTH_DNS_NAMESERVERS: 'ns1.example.net.,ns2.example.net',
    },
  })
  t.ok(app)
})
