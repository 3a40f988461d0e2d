import type { Seed } from '../../test/contract.js'
import { FakeZones, type FakeReply, type FakeRequest, type FakeServer, jsonBody, startFake } from '../../test/fake-server.js'

/**
 * Cloudflare API v4 as documented, for the driver's tests: Bearer token,
 * { success, errors, messages, result, result_info } envelope, page/per_page
 * pagination (per_page capped like the real zones list at 50), zone ids
 * distinct from names, SRV/CAA written through `data`.
 */
export interface CloudflareFake extends FakeServer {
  state: FakeZones
  zoneIds: Map<string, string>
}

const fail = (status: number, code: number, message: string): FakeReply => ({
  status,
  body: { success: false, errors: [{ code, message }], messages: [], result: null },
})
const ok = (result: unknown, result_info?: object): FakeReply => ({
  status: 200,
  body: { success: true, errors: [], messages: [], result, ...(result_info ? { result_info } : {}) },
})

function paged(req: FakeRequest, items: unknown[], maxPerPage: number): FakeReply {
  const page = Math.max(1, Number(req.query.get('page') ?? 1))
  const perPage = Math.min(maxPerPage, Math.max(5, Number(req.query.get('per_page') ?? 20)))
  const slice = items.slice((page - 1) * perPage, page * perPage)
  return ok(slice, {
    page,
    per_page: perPage,
    count: slice.length,
    total_count: items.length,
    total_pages: Math.max(1, Math.ceil(items.length / perPage)),
  })
}

export async function startCloudflare(token: string, zones: Record<string, Seed[]>): Promise<CloudflareFake> {
  const state = new FakeZones()
  const zoneIds = new Map<string, string>()
  for (const [name, records] of Object.entries(zones)) {
    state.add(
      name,
      records.map((r) => ({ ...r, name: r.name === '@' ? name : `${r.name}.${name}` })),
    )
    zoneIds.set(`023e105f4ecef8ad9ca31a8372d0c3${String(zoneIds.size).padStart(2, '0')}`, name)
  }

  const toCf = (zone: string, r: Record<string, unknown>) => {
    const data = r.data as Record<string, unknown> | undefined
    let content = r.content
    if (r.type === 'SRV' && data) content = `${data.weight} ${data.port} ${data.target}`
    if (r.type === 'CAA' && data) content = `${data.flags} ${data.tag} "${data.value}"`
    return {
      ...r,
      content,
      zone_name: zone,
      proxiable: true,
      proxied: r.proxied ?? false,
      ...(r.type === 'SRV' && data ? { priority: data.priority } : {}),
    }
  }

  const validate = (body: Record<string, unknown> | null): FakeReply | null => {
    if (!body || typeof body.type !== 'string' || typeof body.name !== 'string') return fail(400, 9005, 'Content for record is invalid.')
    if ((body.type === 'SRV' || body.type === 'CAA') && typeof body.data !== 'object')
      return fail(400, 9101, 'data is required for this record type.')
    if (body.type !== 'SRV' && body.type !== 'CAA' && typeof body.content !== 'string')
      return fail(400, 9005, 'Content for record is invalid.')
    if (body.type === 'MX' && typeof body.priority !== 'number') return fail(400, 9100, 'MX records must have a priority.')
    return null
  }

  const fake = await startFake((req) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      if (req.path === '/user/tokens/verify') return fail(401, 1000, 'Invalid API Token')
      return fail(403, 10000, 'Authentication error')
    }
    if (req.path === '/user/tokens/verify') return ok({ id: 'ed17574386854bf78a67040be0a770b0', status: 'active' })
    if (req.path === '/zones' && req.method === 'GET') {
      return paged(
        req,
        [...zoneIds].map(([id, name]) => ({ id, name, status: 'active' })),
        50,
      )
    }
    const m = /^\/zones\/([^/]+)\/dns_records(?:\/([^/]+))?$/.exec(req.path)
    const zone = m ? zoneIds.get(m[1] as string) : undefined
    if (!m || !zone) return fail(404, 7003, 'Could not route to /zones, perhaps your object identifier is invalid?')
    const records = state.records(zone) as Array<Record<string, unknown> & { id: string }>
    const id = m[2]
    if (!id && req.method === 'GET')
      return paged(
        req,
        records.map((r) => toCf(zone, r)),
        100,
      )
    if (!id && req.method === 'POST') {
      const body = jsonBody(req)
      const bad = validate(body)
      if (bad) return bad
      const created = { ...body, id: `rec${state.id()}` }
      records.push(created)
      return ok(toCf(zone, created))
    }
    const index = records.findIndex((r) => r.id === id)
    if (index < 0) return fail(404, 81044, 'Record does not exist.')
    if (req.method === 'PUT') {
      const body = jsonBody(req)
      const bad = validate(body)
      if (bad) return bad
      records[index] = { ...body, id: id as string }
      return ok(toCf(zone, records[index]))
    }
    if (req.method === 'DELETE') {
      records.splice(index, 1)
      return ok({ id })
    }
    return fail(405, 10405, 'Method not allowed')
  })
  return Object.assign(fake, { state, zoneIds })
}
