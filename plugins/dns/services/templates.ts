import type { RecordType } from '../../../drivers/dns-providers/driver.js'
import { invalid, type RecordBody } from './validate.js'

/**
 * The six record templates. Placeholders are `{{variable}}`; the required
 * variables are those of docs/api.md. Substituted records go through the
 * same validation table as records posted by hand.
 */
export interface TemplateRecord {
  type: RecordType
  name: string
  content: string
  ttl: number
  priority: number | null
}

export interface TemplateDef {
  name: string
  description: string
  required_variables: string[]
  records: TemplateRecord[]
}

const rec = (type: RecordType, name: string, content: string, priority: number | null = null, ttl = 3600): TemplateRecord => ({
  type,
  name,
  content,
  ttl,
  priority,
})

export const TEMPLATES: TemplateDef[] = [
  {
    name: 'mail-full',
    description: 'Mail server: A for the mail host, MX, SPF, DKIM and DMARC',
    required_variables: ['domain', 'server_ip', 'dkim_key'],
    records: [
      rec('A', 'mail', '{{server_ip}}'),
      rec('MX', '@', 'mail.{{domain}}', 10),
      rec('TXT', '@', 'v=spf1 mx a:mail.{{domain}} -all'),
      rec('TXT', 'default._domainkey', 'v=DKIM1; k=rsa; p={{dkim_key}}'),
      rec('TXT', '_dmarc', 'v=DMARC1; p=quarantine; rua=mailto:postmaster@{{domain}}'),
    ],
  },
  {
    name: 'mail-mx-only',
    description: 'Route mail for the domain to an existing mail host',
    required_variables: ['domain', 'mail_host'],
    records: [rec('MX', '@', '{{mail_host}}', 10), rec('TXT', '@', 'v=spf1 mx -all')],
  },
  {
    name: 'expose-service',
    description: 'A host name under the zone pointing at a service',
    required_variables: ['subdomain', 'target_ip'],
    records: [rec('A', '{{subdomain}}', '{{target_ip}}', null, 300)],
  },
  {
    name: 'caa-letsencrypt',
    description: "Allow only Let's Encrypt to issue certificates",
    required_variables: ['domain'],
    records: [
      rec('CAA', '@', '0 issue "letsencrypt.org"'),
      rec('CAA', '@', '0 issuewild "letsencrypt.org"'),
      rec('CAA', '@', '0 iodef "mailto:hostmaster@{{domain}}"'),
    ],
  },
  {
    name: 'verify-google',
    description: 'Google site verification TXT record',
    required_variables: ['token'],
    records: [rec('TXT', '@', 'google-site-verification={{token}}')],
  },
  {
    name: 'verify-microsoft',
    description: 'Microsoft 365 domain verification TXT record',
    required_variables: ['token'],
    records: [rec('TXT', '@', 'MS={{token}}')],
  },
]

export const TEMPLATE_NAMES = TEMPLATES.map((t) => t.name)

/** The template's records with variables substituted; a missing or empty variable → 400 naming it. */
export function renderTemplate(name: string, variables: Record<string, string>): RecordBody[] {
  const template = TEMPLATES.find((t) => t.name === name)
  if (!template) throw invalid('template', 'enum', `unknown template ${name}`)
  for (const v of template.required_variables) {
    if (typeof variables[v] !== 'string' || variables[v].trim() === '') {
      throw invalid(`variables.${v}`, 'required', `template ${name} needs the variable ${v}`)
    }
  }
  const fill = (text: string) => text.replace(/\{\{(\w+)\}\}/g, (_, v: string) => (variables[v] as string).trim())
  return template.records.map((r) => ({ type: r.type, name: fill(r.name), content: fill(r.content), ttl: r.ttl, priority: r.priority }))
}
