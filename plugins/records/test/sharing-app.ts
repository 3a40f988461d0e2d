import type { HearthEvent } from '../../../core/events.js'
import records from '../index.js'
import { addUser, build, owner, recordEvents, type TestApp, type TestContext } from '../../../test/helper.js'
import { type Call, callerOf } from './records-app.js'

/** A household for sharing tests: the owner and two members, each with their id, email and a `call` through HTTP. */
export interface Member {
  id: string
  email: string
  token: string
  call: Call
}

export interface Household {
  app: TestApp
  members: Member[]
  events: HearthEvent[]
}

export async function household(
  t: TestContext,
  opts: { size?: number; plugins?: unknown[]; env?: Record<string, string> } = {},
): Promise<Household> {
  const app = await build(t, { env: opts.env, plugins: (opts.plugins ?? [records]) as never })
  const events = recordEvents(app, '*')
  const first = await owner(app, 'parent@example.test')
  const users = [first]
  for (let i = 1; i < (opts.size ?? 3); i++) users.push(await addUser(app, first.token, { email: `member${i}@example.test` }))
  const callAs = callerOf(app)
  return {
    app,
    events,
    members: users.map((u) => ({ id: u.userId, email: u.email, token: u.token, call: callAs(u.token) })),
  }
}
