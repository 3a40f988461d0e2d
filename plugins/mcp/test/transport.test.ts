import t from 'tap'
import { addUser, apiKey, auth, build, owner } from '../../../test/helper.js'
import { agentSetup, call, connectHttp, listening, post } from './mcp-client.js'

const initialize = (protocolVersion: unknown, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
})
const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' })

t.test('tokens and scopes: bad token and revoked key 401, sync key 403, agent and system keys work', async (t) => {
  const app = await build(t)
  const base = await listening(app)
  const o = await owner(app)

  for (const [what, headers] of [
    ['no token', {}],
    ['bad token', { authorization: 'Bearer clk_0000000000000000000000000000000' }],
  ] as const) {
    const res = await post(base, ping(1), headers)
    t.equal(res.status, 401, what)
    t.equal(res.body.error.code, 'UNAUTHORIZED', what)
  }
  await t.rejects(connectHttp(base, 'not-a-token'), { code: 401 }, 'the SDK client cannot connect with a bad token')

  const agent = await apiKey(app, o.token, { scope: 'agent' })
  const client = await connectHttp(base, agent)
  t.equal((await call(client, 'create_note', { content: 'by the agent' })).isError, undefined)
  const keys = (await app.inject({ method: 'GET', url: '/api/v1/admin/api-keys', headers: auth(o.token) })).json().data
  const revoked = await app.inject({ method: 'DELETE', url: `/api/v1/admin/api-keys/${keys[0].id}`, headers: auth(o.token) })
  t.equal(revoked.statusCode, 200)
  await t.rejects(client.listTools(), { code: 401 }, 'a revoked key is refused on its next request')
  await client.close()

  const sync = await apiKey(app, o.token, { scope: 'sync' })
  const refused = await post(base, ping(2), auth(sync))
  t.equal(refused.status, 403)
  t.match(refused.body.error, { code: 'INSUFFICIENT_SCOPE', details: { scope: 'sync' } }, 'sync keys serve sync connectors, not agents')

  const session = await connectHttp(base, o.token)
  t.equal((await session.listTools()).tools.length, 31, "a user's own access token works too")
  await session.close()
})

t.test('a system key acts for the user named in X-Svc-User-Id, forwarded to every tool call', async (t) => {
  const app = await build(t)
  const base = await listening(app)
  const o = await owner(app)
  const other = await addUser(app, o.token)
  const system = await apiKey(app, o.token, { scope: 'system' })

  const without = await post(base, ping(1), auth(system))
  t.equal(without.status, 400, 'multi-user mode: a system key names its user')
  t.equal(without.body.error.code, 'USER_CONTEXT_REQUIRED')

  const client = await connectHttp(base, system, { 'x-svc-user-id': other.userId })
  t.teardown(() => client.close())
  const note = await call(client, 'create_note', { content: 'for the other user' })
  const theirs = await app.inject({ method: 'GET', url: `/api/v1/notes/${note.structuredContent?.id}`, headers: auth(other.token) })
  t.equal(theirs.statusCode, 200, 'written as that user')
  const mine = await app.inject({ method: 'GET', url: `/api/v1/notes/${note.structuredContent?.id}`, headers: auth(o.token) })
  t.equal(mine.statusCode, 404, 'not as the owner')
})

t.test('Origin: loopback, this machine and the allow-list pass; any other browser origin is refused with 403', async (t) => {
  const { base, key } = await agentSetup(t, { HEARTH_MCP_ALLOWED_ORIGINS: 'https://assistant.example.org, http://nas.lan:8080' })
  for (const origin of [
    'http://localhost:5173',
    'http://127.0.0.1:7200',
    'http://[::1]:3000',
    'https://assistant.example.org',
    'http://nas.lan:8080',
  ]) {
    t.equal((await post(base, ping(1), { ...auth(key), origin })).status, 200, `${origin} passes`)
  }
  for (const origin of ['http://evil.example', 'http://localhost.evil.example', 'https://assistant.example.org:444', 'null', 'nonsense']) {
    const res = await post(base, ping(1), { ...auth(key), origin })
    t.equal(res.status, 403, `${origin} refused`)
    t.equal(res.body.error.code, 'FORBIDDEN')
  }
  const anonymous = await post(base, ping(1), { origin: 'http://evil.example' })
  t.equal(anonymous.status, 403, 'refused before the token is even looked at')
  await t.rejects(connectHttp(base, key, { origin: 'http://rebound.example:7200' }), { code: 403 }, 'the SDK client sees the 403')
})

t.test('protocol: version negotiation, the version header, batches only under 2025-03-26, errors', async (t) => {
  const { base, key } = await agentSetup(t)
  const send = (body: unknown, headers: Record<string, string> = {}) => post(base, body, { ...auth(key), ...headers })

  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
    t.equal((await send(initialize(version))).body.result.protocolVersion, version, `${version} is spoken`)
  }
  const future = await send(initialize('2031-01-01'))
  t.equal(future.body.result.protocolVersion, '2025-11-25', 'an unknown version gets our latest')
  t.same(future.body.result.capabilities, { tools: { listChanged: false } })
  t.equal((await send(initialize(undefined))).body.error.code, -32602, 'initialize without a version')

  const badHeader = await send(ping(1), { 'mcp-protocol-version': '1999-01-01' })
  t.equal(badHeader.status, 400, 'an unsupported MCP-Protocol-Version is 400')
  t.equal(badHeader.body.error.code, -32600)

  t.equal((await send({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202, 'notification: 202, no body')
  t.equal((await send({ jsonrpc: '2.0', id: 9, result: {} })).status, 202, 'a client response: 202')
  t.same((await send(ping('p'))).body, { jsonrpc: '2.0', id: 'p', result: {} })
  t.equal((await send({ jsonrpc: '2.0', id: 3, method: 'resources/list' })).body.error.code, -32601, 'unknown method')
  t.equal((await send('{"jsonrpc":')).body.error.code, -32700, 'not JSON: parse error')
  t.equal((await send('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1}}')).body.error.code, -32700, 'prototype keys refused')
  for (const bad of [
    { id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: {}, method: 'ping' },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: [1] },
    42,
  ]) {
    const res = await send(bad)
    t.equal(res.status, 400, `${JSON.stringify(bad)}: 400`)
    t.equal(res.body.error.code, -32600, 'invalid request')
  }
  const noArgs = await send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'search', arguments: [1] } })
  t.equal(noArgs.body.error.code, -32602, 'arguments must be an object')

  const batch = [
    ping(1),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { nope: 1 },
  ]
  const old = await send(batch)
  t.equal(old.status, 200, 'no header: 2025-03-26 assumed, batches allowed')
  t.same(
    old.body.map((r: { id: unknown }) => r.id),
    [1, 2, null],
    'one answer per request (and per invalid entry), in order, none for the notification',
  )
  t.equal(old.body[1].result.tools.length, 31)
  t.equal((await send(batch, { 'mcp-protocol-version': '2025-03-26' })).status, 200)
  const modern = await send(batch, { 'mcp-protocol-version': '2025-06-18' })
  t.equal(modern.status, 400, 'batches left the protocol in 2025-06-18')
  t.equal(modern.body.error.code, -32600)
  t.equal((await send([])).status, 400, 'an empty batch is invalid')
  t.equal((await send(Array.from({ length: 17 }, (_, i) => ping(i)))).status, 400, 'at most 16 messages')
  t.equal((await send(Array.from({ length: 16 }, (_, i) => ping(i)))).body.length, 16, 'sixteen are answered')
  t.equal((await send([initialize('2025-03-26')])).body[0].error.code, -32600, 'initialize is never batched')
  const notes = await send([
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_note', arguments: { content: 'first' } } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search', arguments: { types: ['notes'] } } },
  ])
  t.equal(notes.body[1].result.structuredContent.notes.total, 1, 'a batch runs in order: the search sees the note')

  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(`${base}/api/v1/mcp`, { method, headers: auth(key) })
    t.equal(res.status, 405, `${method}: no SSE stream, no session`)
    t.equal(res.headers.get('allow'), 'POST')
  }
})

t.test('each tool call is a REST request of the key: it spends the same rate-limit budget', async (t) => {
  const { app, base, key } = await agentSetup(t, { HEARTH_RATE_LIMIT: '6' })
  const tool = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'search', arguments: { types: ['notes', 'events'] } },
  })
  // 1 for the MCP request + 2 for the two list routes it runs = 3 per call.
  t.equal((await post(base, tool(1), auth(key))).body.result.isError, undefined, 'budget 6: 3 spent')
  t.equal((await post(base, tool(2), auth(key))).body.result.isError, undefined, '6 spent')
  const spent = await post(base, ping(3), auth(key))
  t.equal(spent.status, 429, 'the next MCP request is over the budget')
  t.equal(spent.body.error.code, 'RATE_LIMITED')
  const restToo = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(key) })
  t.equal(restToo.statusCode, 429, 'and so is the same key on REST')
})

t.test('a tool whose REST request is over the budget answers isError RATE_LIMITED with the wait', async (t) => {
  const { base, key } = await agentSetup(t, { HEARTH_RATE_LIMIT: '2' })
  const res = await post(base, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: {} } }, auth(key))
  t.equal(res.status, 200)
  t.equal(res.body.result.isError, true)
  t.equal(res.body.result.structuredContent.error.code, 'RATE_LIMITED', 'the second list route is the third request')
  t.ok(res.body.result.structuredContent.error.details.retry_after_s > 0)
})
