/**
 * The in-process event bus. Record changes, DNS changes and driver swaps are
 * published here; the WebSocket hub and caches subscribe. Patterns: an exact
 * name ('note.created'), a prefix wildcard ('note.*') or '*'.
 */
export interface HearthEvent<D = unknown> {
  /** '<record>.<action>', e.g. 'note.created', 'dns.record.updated', 'driver.changed'. */
  type: string
  /** Owner of the change; null for system-wide events (driver swaps). */
  userId: string | null
  /**
   * The user whose request made the change, when a user's did (since plugin API 1.9.0): the owner
   * themself, or another member writing what the owner shares with them (the event is still the
   * owner's). Absent for changes no user asked for (the trash emptied by age). Realtime does not
   * send it: its messages carry the fields docs/api.md lists.
   */
  actorId?: string
  /** Id of the changed resource, when there is one. */
  id?: string
  /** ISO 8601 time of the change. */
  at: string
  data: D
}

export type EventInput<D = unknown> = Omit<HearthEvent<D>, 'type' | 'at'> & { at?: string }
export type EventListener = (event: HearthEvent) => void | Promise<void>

export interface EventBus {
  /** Subscribes; returns the function that unsubscribes. */
  on(pattern: string, listener: EventListener): () => void
  /** Publishes without waiting; a failing listener is logged, never thrown to the emitter. */
  emit<D>(type: string, input: EventInput<D>): HearthEvent<D>
  /** Publishes and waits for every listener (used where order matters, e.g. before disposing a driver). */
  emitAndWait<D>(type: string, input: EventInput<D>): Promise<HearthEvent<D>>
  /**
   * Says who besides an event's `userId` may read the events matching `pattern` (a member a
   * record is shared with). The plugin that emits them owns the rule; whoever delivers events to
   * users (realtime) asks `mayRead` at each delivery and each replay, so a right withdrawn stops
   * the next one. Returns the function that removes the rule.
   */
  readers(pattern: string, rule: ReaderRule): () => void
  /** Whether `userId` may read `event`: theirs (its userId), or a `readers` rule admits them now. */
  mayRead(userId: string, event: ReadableEvent): boolean
  /** The users whose events some `readers` rule may let `userId` read (a replay reads their journaled events too). */
  readableOwners(userId: string): string[]
}

/** What a `readers` rule judges: the event's type, owner, data and time (a replayed event is an old one). */
export type ReadableEvent = Pick<HearthEvent, 'type' | 'userId' | 'data' | 'at'>

/** Who besides its owner may read an event (EventBus.readers). */
export interface ReaderRule {
  /** The users whose events this rule may let `userId` read. */
  owners(userId: string): string[]
  /** Whether `userId` may read `event` now; `event.at` says when it happened (a right given later does not reach back). */
  mayRead(userId: string, event: ReadableEvent): boolean
}

export function matches(pattern: string, type: string): boolean {
  if (pattern === '*' || pattern === type) return true
  return pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))
}

export function createEventBus(onListenerError: (err: unknown, event: HearthEvent) => void): EventBus {
  const listeners = new Set<{ pattern: string; listener: EventListener }>()

  const deliver = (event: HearthEvent): Promise<void>[] => {
    const pending: Promise<void>[] = []
    for (const entry of listeners) {
      if (!matches(entry.pattern, event.type)) continue
      try {
        const result = entry.listener(event)
        if (result) pending.push(result.catch((err) => onListenerError(err, event)))
      } catch (err) {
        onListenerError(err, event)
      }
    }
    return pending
  }

  const make = <D>(type: string, input: EventInput<D>): HearthEvent<D> => ({
    type,
    userId: input.userId,
    ...(input.actorId !== undefined ? { actorId: input.actorId } : {}),
    ...(input.id !== undefined ? { id: input.id } : {}),
    at: input.at ?? new Date().toISOString(),
    data: input.data,
  })

  const rules = new Set<{ pattern: string; rule: ReaderRule }>()

  return {
    readers(pattern, rule) {
      const entry = { pattern, rule }
      rules.add(entry)
      return () => rules.delete(entry)
    },
    mayRead(userId, event) {
      if (event.userId === userId) return true
      if (event.userId === null) return false
      for (const { pattern, rule } of rules) if (matches(pattern, event.type) && rule.mayRead(userId, event)) return true
      return false
    },
    readableOwners(userId) {
      const out = new Set<string>()
      for (const { rule } of rules) for (const owner of rule.owners(userId)) if (owner !== userId) out.add(owner)
      return [...out]
    },
    on(pattern, listener) {
      const entry = { pattern, listener }
      listeners.add(entry)
      return () => listeners.delete(entry)
    },
    emit(type, input) {
      const event = make(type, input)
      deliver(event)
      return event
    },
    async emitAndWait(type, input) {
      const event = make(type, input)
      await Promise.all(deliver(event))
      return event
    },
  }
}
