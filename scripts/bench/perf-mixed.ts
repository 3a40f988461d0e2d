/**
 * A household at once: several users, each with an API key of their own and a WebSocket open on the
 * realtime endpoint, reading their notes by id, listing, searching and writing, all through one wrk
 * process (each request takes the next user's key in turn). The daemon's memory is sampled during the
 * load; each socket counts the events it receives (each of its user's creates sends one).
 */
import { json } from './harness.js'
import { type Shot, shoot } from './load.js'
import { luaString, noteBodyTemplate } from './perf-lua.js'
import { WORD } from './records.js'

export interface HouseholdUser {
  userId: string
  key: string
  ids: string[]
}

/** Invites and registers `count` users (the owner's token), each with an agent key of their own. */
export async function inviteUsers(base: string, ownerToken: string, count: number): Promise<{ userId: string; key: string }[]> {
  const post = async <T>(path: string, body: unknown, token?: string) =>
    json<T>(
      await fetch(`${base}/api/v1${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      }),
    )
  const users: { userId: string; key: string }[] = []
  for (let i = 0; i < count; i++) {
    const invite = await post<{ token: string }>('/admin/invitations', { email: `member${i}-${Date.now()}@example.test` }, ownerToken)
    const joined = await post<{ user: { id: string } }>('/auth/register', { token: invite.token, password: 'member password one' })
    const { key } = await post<{ key: string }>('/admin/api-keys', { scope: 'agent', user_id: joined.user.id }, ownerToken)
    users.push({ userId: joined.user.id, key })
  }
  return users
}

/** The wrk script: 70% GET by id (the user's own notes in turn), 10% list, 10% search, 10% create. */
function mixedLua(users: HouseholdUser[]): string {
  const table = users.map((u) => `{key=${luaString(u.key)}, ids={${u.ids.map(luaString).join(',')}}}`).join(',\n')
  return `local users = {${table}}
local body = ${luaString(noteBodyTemplate())}
local n = 0
request = function()
  n = n + 1
  local u = users[n % #users + 1]
  local turn = math.floor(n / #users)
  local h = {["Authorization"] = "Bearer " .. u.key}
  -- Each user in turn, each turn's kind from the turn number: every user reads, lists, searches and writes.
  local kind = turn % 10
  if kind < 7 then
    return wrk.format("GET", "/api/v1/notes/" .. u.ids[turn % #u.ids + 1], h)
  elseif kind == 7 then
    return wrk.format("GET", "/api/v1/notes?limit=20", h)
  elseif kind == 8 then
    return wrk.format("GET", "/api/v1/notes?search=${WORD}&limit=20", h)
  end
  h["Content-Type"] = "application/json"
  return wrk.format("POST", "/api/v1/notes", h, (body:gsub("@N@", tostring(n), 1)))
end
`
}

export interface MixedResult extends Shot {
  sockets: number
  eventsMin: number
  peak: { rss: number; private: number }
}

/** Opens the users' sockets, runs the mixed load for `seconds` (sampling `memory` every 500 ms), closes the sockets. */
export async function mixedLoad(
  base: string,
  users: HouseholdUser[],
  opts: { connections: number; seconds: number; memory: () => { rss: number; private: number } },
): Promise<MixedResult> {
  const events = users.map(() => 0)
  const sockets = await Promise.all(
    users.map(
      (u, i) =>
        new Promise<WebSocket | null>((resolve) => {
          const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/v1/ws?token=${encodeURIComponent(u.key)}`)
          const timer = setTimeout(() => resolve(null), 10_000)
          ws.onopen = () => {
            clearTimeout(timer)
            resolve(ws)
          }
          ws.onerror = () => {
            clearTimeout(timer)
            resolve(null)
          }
          ws.onmessage = () => void events[i]!++
        }),
    ),
  )
  const peak = { rss: 0, private: 0 }
  const sample = setInterval(() => {
    const now = opts.memory()
    peak.rss = Math.max(peak.rss, now.rss)
    peak.private = Math.max(peak.private, now.private)
  }, 500)
  try {
    const shot = await shoot(`${base}/`, { connections: opts.connections, seconds: opts.seconds, lua: mixedLua(users) })
    // Events of the last writes are still on their way: a moment for them to arrive.
    await new Promise((r) => setTimeout(r, 500))
    return { ...shot, sockets: sockets.filter(Boolean).length, eventsMin: Math.min(...events), peak }
  } finally {
    clearInterval(sample)
    for (const ws of sockets) ws?.close()
  }
}
