import { FakeZones, type FakeReply, type FakeRequest, type FakeServer, jsonBody, startFake } from '../../test/fake-server.js'
import type { Seed } from '../../test/contract.js'

/**
 * DigitalOcean API v2 as documented: Bearer token, { id, message } errors,
 * page/per_page with links.pages.{first,prev,next,last} as absolute URLs and
 * meta.total; records relative ('@' apex) with data/priority/port/weight/flags/tag;
 * POST answers 201 { domain_record }, DELETE 204. per_page is capped at
 * `maxPerPage` so tests cross page boundaries.
 */
export interface DigitalOceanFake extends FakeServer {
  state: FakeZones
}

const error = (status: number, id: string, message: string): FakeReply => ({
  status,
  body: { id, message, request_id: '4d9d8375-3c56-4925-a3e7-eed06d9b3eca' },
})

export async function startDigitalOcean(token: string, zones: Record<string, Seed[]>, maxPerPage = 20): Promise<DigitalOceanFake> {
  const state = new FakeZones()
  for (const [zone, seeds] of Object.entries(zones)) {
    state.add(zone, [
      { type: 'SOA', name: '@', data: '1800', priority: null, port: null, ttl: 1800, weight: null, flags: null, tag: null },
      ...seeds.map((s) => ({
        type: s.type,
        name: s.name,
        data: s.content,
        priority: s.priority ?? null,
        port: null,
        ttl: s.ttl,
        weight: null,
        flags: null,
        tag: null,
      })),
    ])
  }
  let base = ''

  const paged = (req: FakeRequest, key: string, items: unknown[]): FakeReply => {
    const page = Math.max(1, Number(req.query.get('page') ?? 1))
    const perPage = Math.min(maxPerPage, Math.max(1, Number(req.query.get('per_page') ?? 20)))
    const last = Math.max(1, Math.ceil(items.length / perPage))
    const link = (p: number) => `${base}${req.path}?page=${p}&per_page=${perPage}`
    const pages: Record<string, string> = {}
    if (page > 1) Object.assign(pages, { first: link(1), prev: link(page - 1) })
    if (page < last) Object.assign(pages, { next: link(page + 1), last: link(last) })
    return {
      status: 200,
      body: { [key]: items.slice((page - 1) * perPage, page * perPage), links: { pages }, meta: { total: items.length } },
    }
  }

  const recordFrom = (body: Record<string, unknown> | null, id: number) => {
    if (!body || typeof body.type !== 'string' || typeof body.name !== 'string' || typeof body.data !== 'string') return null
    const num = (k: string) => (typeof body[k] === 'number' ? (body[k] as number) : null)
    return {
      id,
      type: body.type,
      name: body.name,
      data: body.data,
      priority: num('priority'),
      port: num('port'),
      ttl: num('ttl') ?? 1800,
      weight: num('weight'),
      flags: num('flags'),
      tag: (body.tag as string) ?? null,
    }
  }

  const fake = await startFake((req) => {
    if (req.headers.authorization !== `Bearer ${token}`) return error(401, 'unauthorized', 'Unable to authenticate you')
    if (req.path === '/account')
      return { status: 200, body: { account: { uuid: 'b6fr89dbf6d9156cace5f3c78dc9851d957381ef', status: 'active' } } }
    if (req.path === '/domains' && req.method === 'GET')
      return paged(
        req,
        'domains',
        [...state.zones.keys()].map((name) => ({ name, ttl: 1800, zone_file: '' })),
      )
    const m = /^\/domains\/([^/]+)\/records(?:\/(\d+))?$/.exec(req.path)
    const records = m ? (state.records(m[1] as string) as Array<{ id: string | number; [k: string]: unknown }> | undefined) : undefined
    if (!m || !records) return error(404, 'not_found', 'The resource you were accessing could not be found.')
    const id = m[2] === undefined ? undefined : Number(m[2])
    if (id === undefined && req.method === 'GET')
      return paged(
        req,
        'domain_records',
        records.map((r) => ({ ...r, id: Number(r.id) })),
      )
    if (id === undefined && req.method === 'POST') {
      const rec = recordFrom(jsonBody(req), Number(state.id()))
      if (!rec) return error(422, 'unprocessable_entity', 'Name, type and data are required.')
      records.push({ ...rec, id: String(rec.id) })
      return { status: 201, body: { domain_record: rec } }
    }
    const index = records.findIndex((r) => Number(r.id) === id)
    if (index < 0) return error(404, 'not_found', 'The resource you were accessing could not be found.')
    if (req.method === 'PUT') {
      const rec = recordFrom(jsonBody(req), id as number)
      if (!rec) return error(422, 'unprocessable_entity', 'Name, type and data are required.')
      records[index] = { ...rec, id: String(rec.id) }
      return { status: 200, body: { domain_record: rec } }
    }
    if (req.method === 'DELETE') {
      records.splice(index, 1)
      return { status: 204, body: null }
    }
    return error(405, 'method_not_allowed', 'Method not allowed')
  })
  base = fake.url
  return Object.assign(fake, { state })
}
