import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Agent } from 'node:https'
import { rootCertificates } from 'node:tls'
import { type HearthApi, preparedOnUse } from '../../core/plugin-api.js'
import type { ProxyConfig } from './config.js'
import type { DnsProviderService } from './dns-provider.js'

interface CertRow {
  domain: string
  certificate: string | null
  private_key: string | null
  not_after: string | null
  error: string | null
}

const DAY = 86_400_000
const RENEW_DAYS = 30

/**
 * Certificates Hearth obtains itself with ACME DNS-01 (acme-client), for what Caddy cannot do alone
 * with Debian's modules: wildcards, and names whose zone Hearth serves (its own authoritative DNS)
 * or reaches (the DNS-provider integration), which then need no open port 80/443. The challenge TXT
 * goes through Hearth's DNS plugin (events acme.challenge.set/clear, see plugins/dns) or the provider.
 */
export function dns01Service(api: HearthApi<typeof ProxyConfig>, provider: DnsProviderService) {
  const q = preparedOnUse(api.db, {
    get: 'SELECT * FROM proxy_certificates WHERE domain = ?',
    all: 'SELECT * FROM proxy_certificates',
    save: `INSERT INTO proxy_certificates (domain, certificate, private_key, not_after, error, updated_at)
    VALUES (@domain, @certificate, @private_key, @not_after, @error, @updated_at)
    ON CONFLICT (domain) DO UPDATE SET certificate = COALESCE(@certificate, certificate), private_key = COALESCE(@private_key, private_key),
      not_after = COALESCE(@not_after, not_after), error = @error, updated_at = @updated_at`,
    forget: 'DELETE FROM proxy_certificates WHERE domain = ?',
    accountRow: 'SELECT account_key FROM proxy_acme_account WHERE id = 1',
    // Two issuances may create an account key at once: the first one stored wins, both use it.
    saveAccount: 'INSERT OR IGNORE INTO proxy_acme_account (id, account_key) VALUES (1, ?)',
  })
  const running = new Map<string, Promise<void>>()
  const iso = () => new Date(api.now()).toISOString()

  /** Whether Hearth's own DNS serves the name (the DNS plugin answers the lookup event). */
  const servedByHearth = async (name: string) =>
    ((await api.events.emitAndWait('acme.zone.lookup', { userId: null, data: { name, served: false } })).data as { served: boolean }).served

  const acme = async () => {
    const client = await import('acme-client')
    if (api.config.acmeCaRoot) {
      // A test CA (pebble's) beside the system's roots, for the ACME server's own HTTPS.
      client.axios.defaults.httpsAgent = new Agent({ ca: [...rootCertificates, readFileSync(api.config.acmeCaRoot, 'utf8')] })
    }
    const stored = () => (q.accountRow.get() as { account_key: string } | undefined)?.account_key
    if (!stored()) q.saveAccount.run(api.secrets.encrypt((await client.crypto.createPrivateKey()).toString()))
    return { client, accountKey: api.secrets.decrypt(stored() as string) }
  }

  const issue = async (domain: string): Promise<void> => {
    // Refused before the CA is asked: a challenge nobody can publish only earns a failed order.
    const apex = domain.replace(/^\*\./, '')
    if (!(await servedByHearth(apex)) && !provider.covers(apex)) {
      throw new Error(`no DNS answers for _acme-challenge.${apex}: serve its zone with Hearth's DNS, or configure /proxy/dns-provider`)
    }
    const { client, accountKey } = await acme()
    const acmeClient = new client.Client({ directoryUrl: api.config.acmeDirectory, accountKey })
    const [key, csr] = await client.crypto.createCsr({ commonName: domain, altNames: [domain] })
    const viaProvider = new Map<string, () => Promise<void>>()
    const pem = await acmeClient.auto({
      csr,
      email: api.config.acmeEmail || undefined,
      termsOfServiceAgreed: true,
      challengePriority: ['dns-01'],
      // The CA checks the TXT record; acme-client's own check would ask this machine's resolver.
      skipChallengeVerification: true,
      challengeCreateFn: async (authz, _challenge, value) => {
        const name = `_acme-challenge.${authz.identifier.value}`
        const set = await api.events.emitAndWait('acme.challenge.set', { userId: null, data: { name, value, served: false } })
        if ((set.data as { served: boolean }).served) return
        const remove = await provider.addChallenge(name, value)
        if (!remove) throw new Error(`no DNS answers for ${name}: serve its zone with Hearth's DNS, or configure /proxy/dns-provider`)
        viaProvider.set(`${name} ${value}`, remove)
      },
      challengeRemoveFn: async (authz, _challenge, value) => {
        const name = `_acme-challenge.${authz.identifier.value}`
        await api.events.emitAndWait('acme.challenge.clear', { userId: null, data: { name, value, served: false } })
        await viaProvider.get(`${name} ${value}`)?.()
      },
    })
    const cert = new X509Certificate(pem)
    q.save.run({
      domain,
      certificate: pem,
      private_key: api.secrets.encrypt(key.toString()),
      not_after: new Date(Date.parse(cert.validTo)).toISOString(),
      error: null,
      updated_at: iso(),
    })
  }

  return {
    /** Whether Hearth gets this name's certificate itself: a wildcard, or a zone Hearth or the integration serves. */
    async wanted(domain: string): Promise<boolean> {
      const apex = domain.replace(/^\*\./, '')
      return domain.startsWith('*.') || (await servedByHearth(apex)) || provider.covers(apex)
    },

    /** Starts (or joins) an issuance; never throws: a failure is kept as the domain's error. */
    obtain(domain: string, after: () => Promise<void>): Promise<void> {
      const current = running.get(domain)
      if (current) return current
      const changed = (data: object): void => void api.events.emit('ssl.changed', { userId: null, data: { domain, ...data } })
      const run = issue(domain)
        .then(after)
        .then(() => changed({ status: 'valid', error: null }))
        .catch((err: unknown) => {
          const message = `ACME DNS-01 for ${domain} failed: ${(err as Error).message}`.slice(0, 500)
          api.log.warn({ domain, err: (err as Error).message }, 'certificate not issued')
          q.save.run({ domain, certificate: null, private_key: null, not_after: null, error: message, updated_at: iso() })
          changed({ status: 'error', error: message })
        })
        .finally(() => running.delete(domain))
      running.set(domain, run)
      return run
    },

    /** Keeps a certificate obtained elsewhere (Tailscale's `tailscale cert`) to serve like an issued one. */
    adopt(domain: string, pem: string, key: string): void {
      const cert = new X509Certificate(pem)
      q.save.run({
        domain,
        certificate: pem,
        private_key: api.secrets.encrypt(key),
        not_after: new Date(Date.parse(cert.validTo)).toISOString(),
        error: null,
        updated_at: iso(),
      })
    },

    /** The certificate and key Hearth holds for a domain, for Caddy. */
    held(domain: string): { pem: string; key: string } | null {
      const row = q.get.get(domain) as CertRow | undefined
      return row?.certificate && row.private_key ? { pem: row.certificate, key: api.secrets.decrypt(row.private_key) } : null
    },

    status(domain: string): { pem: string | null; error: string | null; issuing: boolean } | null {
      const row = q.get.get(domain) as CertRow | undefined
      if (!row && !running.has(domain)) return null
      return { pem: row?.certificate ?? null, error: row?.error ?? null, issuing: running.has(domain) }
    },

    /** Domains whose certificate ends within 30 days (or never came): the renewal job's list. */
    due(): string[] {
      return (q.all.all() as CertRow[])
        .filter((r) => !r.not_after || Date.parse(r.not_after) - api.now() < RENEW_DAYS * DAY)
        .map((r) => r.domain)
    },

    forget: (domain: string) => void q.forget.run(domain),
  }
}
export type Dns01Service = ReturnType<typeof dns01Service>
