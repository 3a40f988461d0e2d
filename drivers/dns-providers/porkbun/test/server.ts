import { FakeZones, type FakeReply, type FakeServer, jsonBody, startFake } from '../../test/fake-server.js'
import type { Seed } from '../../test/contract.js'

/**
 * Porkbun API v3 as documented: POST only, JSON body with apikey and
 * secretapikey, { status: 'SUCCESS' | 'ERROR', message } replies (HTTP 400 on
 * errors), fully-qualified record names, ttl/prio as strings, listAll pages of
 * 1000 by `start`. Content containing REJECT-ME is refused (for failure tests).
 */
export interface PorkbunFake extends FakeServer {
  state: FakeZones
}

const error = (message: string): FakeReply => ({ status: 400, body: { status: 'ERROR', message } })

export async function startPorkbun(keys: { apikey: string; secretapikey: string }, zones: Record<string, Seed[]>): Promise<PorkbunFake> {
  const state = new FakeZones()
  for (const [zone, seeds] of Object.entries(zones)) {
    state.add(
      zone,
      seeds.map((s) => ({
        name: s.name === '@' ? zone : `${s.name}.${zone}`,
        type: s.type,
        content: s.content,
        ttl: String(s.ttl),
        prio: String(s.priority ?? 0),
        notes: '',
      })),
    )
  }

  const fake = await startFake((req) => {
    if (req.method !== 'POST') return error('Only POST is supported.')
    const body = jsonBody(req)
    if (!body || body.apikey !== keys.apikey || body.secretapikey !== keys.secretapikey) return error('Invalid API key. (002)')
    if (req.path === '/ping') return { status: 200, body: { status: 'SUCCESS', yourIp: '127.0.0.1' } }
    if (req.path === '/domain/listAll') {
      const start = Number(body.start ?? 0)
      const domains = [...state.zones.keys()]
        .slice(start, start + 1000)
        .map((domain) => ({ domain, status: 'ACTIVE', tld: domain.split('.').pop() }))
      return { status: 200, body: { status: 'SUCCESS', domains } }
    }
    const m = /^\/dns\/(retrieve|create|edit|delete)\/([^/]+)(?:\/([^/]+))?$/.exec(req.path)
    if (!m) return error('Invalid endpoint.')
    const [, verb, domain, id] = m as unknown as [string, string, string, string | undefined]
    const records = state.records(domain)
    if (!records) return error('Invalid domain.')
    const fields = () => {
      if (typeof body.type !== 'string' || typeof body.content !== 'string') return null
      const sub = typeof body.name === 'string' ? body.name : ''
      return {
        name: sub === '' ? domain : `${sub}.${domain}`,
        type: body.type,
        content: body.content,
        ttl: String(body.ttl ?? '600'),
        prio: String(body.prio ?? '0'),
        notes: '',
      }
    }
    if (verb === 'retrieve') return { status: 200, body: { status: 'SUCCESS', cloudflare: 'disabled', records } }
    if (verb === 'create') {
      const f = fields()
      if (!f) return error('Create error: type and content are required.')
      // Lets tests make the provider refuse one record, as Porkbun refuses content it cannot publish.
      if (f.content.includes('REJECT-ME')) return error('Create error: invalid content.')
      const rec = { ...f, id: state.id() }
      records.push(rec)
      return { status: 200, body: { status: 'SUCCESS', id: Number(rec.id) } }
    }
    const index = records.findIndex((r) => r.id === id)
    if (index < 0) return error('Invalid record ID.')
    if (verb === 'edit') {
      const f = fields()
      if (!f) return error('Edit error: type and content are required.')
      records[index] = { ...f, id: id as string }
      return { status: 200, body: { status: 'SUCCESS' } }
    }
    records.splice(index, 1)
    return { status: 200, body: { status: 'SUCCESS' } }
  })
  return Object.assign(fake, { state })
}
