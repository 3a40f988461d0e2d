import { randomUUID } from 'node:crypto'
import { type HearthApi, HttpError } from '../../core/plugin-api.js'
import type { ProxyDriver } from '../../drivers/proxy/driver.js'
import type { Dns01Service } from './dns01.js'
import type { RouteRow, RouteStore } from './store.js'
import { normalizeDomain, normalizeTarget } from './validate.js'

export interface RouteView {
  id: string
  domain: string
  target: string
  ssl: boolean
  enabled: boolean
  /** Why Caddy refused this route at the last push; null when served (or disabled). */
  error: string | null
  created_at: string
  updated_at: string
}

const view = (r: RouteRow): RouteView => ({
  id: r.id,
  domain: r.domain,
  target: r.target,
  ssl: r.ssl === 1,
  enabled: r.enabled === 1,
  error: r.error,
  created_at: r.created_at,
  updated_at: r.updated_at,
})

/**
 * Routes in SQLite are the truth; every change pushes the whole set to the proxy, one push at a
 * time. When the proxy is unreachable the change is still kept and answered, health says degraded,
 * and the reconciliation loop pushes once it answers again (or has come back empty).
 */
export function proxyService(api: HearthApi, store: RouteStore, dns01: Dns01Service) {
  const state = {
    reachable: null as boolean | null,
    listening: true,
    error: null as string | null,
    pushedAt: null as string | null,
    /** Set when Caddy was found without Hearth's config (restarted with its own), until it is pushed again. */
    lost: null as string | null,
    /** When and why the routes were last pushed again: Caddy had lost them, or answered again. */
    restored: null as string | null,
  }
  let queue: Promise<unknown> = Promise.resolve()
  let queued = 0
  let checkedAt = 0
  /** Whether Caddy holds routes of ours (then an empty set must be pushed too, to remove them). */
  let served = false
  const iso = () => new Date(api.now()).toISOString()
  const emit = (type: string, data: { id: string }) => api.events.emit(`proxy.route.${type}`, { userId: null, id: data.id, data })

  /** Runs one proxy operation after the ones before it: pushes and checks never interleave. */
  const enqueue = (job: () => Promise<void>): Promise<void> => {
    queued++
    const run = queue.then(job).finally(() => queued--)
    queue = run.catch(() => undefined)
    return run
  }
  const markLost = () => {
    if (state.lost) return
    state.lost = `Caddy no longer serves Hearth's config since ${iso()} (restarted with its own, as caddy.service does)`
    api.log.warn({ component: 'proxy' }, state.lost)
  }

  const pushNow = async (): Promise<void> => {
    const routes = store.list().filter((r) => r.enabled === 1)
    // Nothing to serve and nothing served yet: Caddy is not needed (a box without it stays healthy).
    if (routes.length === 0 && !served) return
    try {
      const { refused } = await api.hal.with<ProxyDriver, { refused: Array<{ id: string; error: string }> }>('proxy', (d) =>
        d.apply(
          routes.map((r) => ({
            id: r.id,
            domain: r.domain,
            target: r.target,
            ssl: r.ssl === 1,
            certificate: (r.ssl === 1 && dns01.held(r.domain)) || undefined,
          })),
        ),
      )
      for (const r of store.list()) store.setError(r.id, refused.find((x) => x.id === r.id)?.error ?? null)
      const after = state.lost ? 'Caddy had lost them' : state.reachable === false ? 'Caddy answered again' : null
      Object.assign(state, { reachable: true, listening: true, error: null, pushedAt: iso(), lost: null })
      if (after) state.restored = `pushed again at ${state.pushedAt} after ${after}`
      served = routes.length > 0
    } catch (err) {
      // Unreachable, or reachable but unable to listen: either way nothing is served, and health says why.
      const portError = (err as Error).name === 'ProxyPortError'
      Object.assign(state, { reachable: portError, listening: !portError, error: (err as Error).message })
      if (portError) for (const r of routes) store.setError(r.id, (err as Error).message)
    }
  }
  const push = () => enqueue(pushNow)

  /** An HTTPS route Hearth must get the certificate for itself (DNS-01): issued in the background, then pushed. */
  const certify = async (row: RouteRow): Promise<void> => {
    if (row.ssl !== 1 || row.enabled !== 1 || dns01.held(row.domain) || !(await dns01.wanted(row.domain))) return
    void dns01.obtain(row.domain, push)
  }

  const find = (id: string) => {
    const row = store.get(id)
    if (!row) throw new HttpError('NOT_FOUND', 'Route not found')
    return row
  }
  const unique = (domain: string, except?: string) => {
    const other = store.byDomain(domain)
    if (other && other.id !== except) throw new HttpError('CONFLICT', `A route for ${domain} already exists`)
  }

  /**
   * One reconciliation, queued behind any push: push again when Caddy was unreachable or no longer
   * serves the last push. Reloading only then matters: a reload cancels an ACME issuance under way.
   */
  const reconcile = () =>
    enqueue(async () => {
      if (!served && !store.list().some((r) => r.enabled === 1)) return
      if (state.reachable === true) {
        const inStep = await api.hal.with<ProxyDriver, boolean>('proxy', (d) => d.inStep()).catch(() => null)
        if (inStep) return
        if (inStep === false) markLost()
      }
      await pushNow()
    })

  return {
    state,
    push,
    /** Starts the DNS-01 issuances that are missing (start) or due (the renewal job). */
    async certifyAll(renew: string[] = []): Promise<void> {
      for (const row of store.list()) {
        if (renew.includes(row.domain) && row.ssl === 1 && row.enabled === 1) void dns01.obtain(row.domain, push)
        else await certify(row)
      }
    },
    list: () => store.list().map(view),
    async create(body: { domain: string; target: string; ssl?: boolean; enabled?: boolean }): Promise<RouteView> {
      const domain = normalizeDomain(body.domain)
      const target = normalizeTarget(body.target)
      unique(domain)
      const at = iso()
      const row: RouteRow = {
        id: randomUUID(),
        domain,
        target,
        ssl: body.ssl ? 1 : 0,
        enabled: body.enabled === false ? 0 : 1,
        error: null,
        created_at: at,
        updated_at: at,
      }
      store.insert(row)
      await push()
      await certify(row)
      const created = view(find(row.id))
      emit('created', created)
      return created
    },
    async update(id: string, patch: { domain?: string; target?: string; ssl?: boolean; enabled?: boolean }): Promise<RouteView> {
      const old = find(id)
      const domain = patch.domain === undefined ? old.domain : normalizeDomain(patch.domain)
      const target = patch.target === undefined ? old.target : normalizeTarget(patch.target)
      unique(domain, id)
      const row: RouteRow = {
        ...old,
        domain,
        target,
        ssl: patch.ssl === undefined ? old.ssl : patch.ssl ? 1 : 0,
        enabled: patch.enabled === undefined ? old.enabled : patch.enabled ? 1 : 0,
        updated_at: iso(),
      }
      store.update(row)
      await push()
      await certify(row)
      const updated = view(find(id))
      emit('updated', updated)
      return updated
    },
    async remove(id: string) {
      find(id)
      store.remove(id)
      await push()
      emit('deleted', { id })
      return { id, deleted: true as const }
    },
    reconcile,
    /**
     * Asks Caddy whether it still serves the last push, at most once a second however often health is
     * asked, and never while a push is under way. A Caddy that lost the config or stopped answering is
     * marked so at once (health says why) and a reconciliation is queued.
     */
    async check(): Promise<void> {
      if (!served || queued > 0 || state.reachable !== true || api.now() - checkedAt < 1000) return
      checkedAt = api.now()
      try {
        if (await api.hal.with<ProxyDriver, boolean>('proxy', (d) => d.inStep())) return
        markLost()
      } catch (err) {
        Object.assign(state, { reachable: false, error: (err as Error).message })
      }
      void reconcile()
    },
  }
}
export type ProxyService = ReturnType<typeof proxyService>
