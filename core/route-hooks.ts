/**
 * A route's hooks of one kind with one more (Fastify takes a function or an array of them), for the
 * onRoute steps that give each route its own hook: the guard first, group commit's join first, the
 * metrics last.
 */
export function withHook<H>(existing: H | H[] | undefined, hook: H, at: 'first' | 'last'): H[] {
  const hooks = existing === undefined ? [] : ([existing].flat() as H[])
  return at === 'first' ? [hook, ...hooks] : [...hooks, hook]
}
