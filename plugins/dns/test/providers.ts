import { startCloudflare } from '../../../drivers/dns-providers/cloudflare/test/server.js'
import { startDigitalOcean } from '../../../drivers/dns-providers/digitalocean/test/server.js'
import { startNamecheap } from '../../../drivers/dns-providers/namecheap/test/server.js'
import { startPorkbun } from '../../../drivers/dns-providers/porkbun/test/server.js'
import type { Seed } from '../../../drivers/dns-providers/test/contract.js'
import type { FakeServer, FakeZones } from '../../../drivers/dns-providers/test/fake-server.js'

/** The four providers' local wire-format servers, as the plugin tests use them. */
export interface ProviderFixture {
  provider: string
  env: string
  credentials: Record<string, string>
  badCredentials: Record<string, string>
  start(zones: Record<string, Seed[]>): Promise<FakeServer & { state: FakeZones }>
}

const cf = { api_token: 'cf-secret-token-0123456789abcdef' }
const pb = { apikey: 'pk1_secretkey_0123456789', secretapikey: 'sk1_secretkey_9876543210' }
const nc = { api_user: 'hearthowner', api_key: 'nc0123456789abcdef0123456789abcd', client_ip: '203.0.113.9' }
const dgo = { api_token: 'dop_v1_secret_0123456789abcdef' }

export const fixtures: ProviderFixture[] = [
  {
    provider: 'cloudflare',
    env: 'HEARTH_CLOUDFLARE_API_URL',
    credentials: cf,
    badCredentials: { api_token: 'cf-wrong-token' },
    start: (z) => startCloudflare(cf.api_token, z),
  },
  {
    provider: 'porkbun',
    env: 'HEARTH_PORKBUN_API_URL',
    credentials: pb,
    badCredentials: { apikey: 'pk1_wrong', secretapikey: 'sk1_wrong' },
    start: (z) => startPorkbun(pb, z),
  },
  {
    provider: 'namecheap',
    env: 'HEARTH_NAMECHEAP_API_URL',
    credentials: nc,
    badCredentials: { ...nc, api_key: 'wrongwrongwrong' },
    start: (z) => startNamecheap(nc, z),
  },
  {
    provider: 'digitalocean',
    env: 'HEARTH_DIGITALOCEAN_API_URL',
    credentials: dgo,
    badCredentials: { api_token: 'dop_v1_wrong' },
    start: (z) => startDigitalOcean(dgo.api_token, z, 3),
  },
]

/** Every credential value of every fixture: none may ever appear in a response or the database file. */
export const allSecrets = fixtures.flatMap((f) =>
  Object.entries(f.credentials)
    .filter(([k]) => k !== 'client_ip' && k !== 'api_user')
    .map(([, v]) => v),
)
