import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { addUser, auth, build, owner } from '../../../test/helper.js'
import { expectProOnly } from '../../sync/test/pro-gate.js'
import { DIMS, startProviderStub } from './provider-stub.js'

/**
 * Bring-your-own AI keys through the HTTP API: settings for free users,
 * base_url for admins only, the key never in answers nor in the database file, and the test action
 * making one real call to a local server speaking the OpenAI and Ollama wire formats.
 */

const KEY = 'sk-test-3f9a1c77e2b84d0c9a5e61f0b2d4c8aa'

/** Every byte of the SQLite database and its WAL, as text. */
const databaseText = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /\.(db|sqlite)(-wal|-shm)?$/.test(f) || f.includes('.db'))
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('\n')

t.test('settings are per user, free users included; the key is never returned nor stored in clear', async (t) => {
  const stub = await startProviderStub(t)
  stub.expectedKey = KEY
  const app = await build(t, { env: { HEARTH_AI_COMPATIBLE_URL: stub.url, HEARTH_AI_OLLAMA_URL: stub.url } })
  const o = await owner(app)
  const u = await addUser(app, o.token)

  const empty = await app.inject({ method: 'GET', url: '/api/v1/ai/settings', headers: auth(u.token) })
  t.equal(empty.statusCode, 200)
  t.same(empty.json().data, { provider: null, model: null, embedding_model: null, base_url: null, configured: false, updated_at: null })

  const body = { provider: 'openai-compatible', model: 'chat-1', embedding_model: 'embed-1', api_key: KEY }
  const put = await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: auth(u.token), payload: body })
  t.equal(put.statusCode, 200, put.body)
  t.match(put.json().data, { provider: 'openai-compatible', model: 'chat-1', embedding_model: 'embed-1', base_url: null, configured: true })
  t.notOk(put.body.includes(KEY), 'the key is not in the answer')
  const got = await app.inject({ method: 'GET', url: '/api/v1/ai/settings', headers: auth(u.token) })
  t.notOk(got.body.includes(KEY))
  t.equal(got.json().data.configured, true)
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/ai/settings', headers: auth(o.token) })).json().data.configured,
    false,
    'per user',
  )

  // The test action: one real call, the key as a Bearer token.
  const test = await app.inject({ method: 'POST', url: '/api/v1/ai/settings/test', headers: auth(u.token) })
  t.equal(test.statusCode, 200, test.body)
  t.match(test.json().data, { ok: true, provider: 'openai-compatible', embedding_model: 'embed-1', dimensions: DIMS, error: null })
  const call = stub.calls.at(-1)!
  t.equal(call.path, '/v1/embeddings')
  t.equal(call.authorization, `Bearer ${KEY}`)
  t.equal(call.body.model, 'embed-1')

  // Saving without api_key keeps the key; a wrong key fails the test with the key redacted.
  const keep = await app.inject({
    method: 'PUT',
    url: '/api/v1/ai/settings',
    headers: auth(u.token),
    payload: { ...body, api_key: undefined, model: 'chat-2' },
  })
  t.equal(keep.json().data.configured, true)
  const wrong = 'sk-wrong-0000111122223333444455556666'
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: auth(u.token), payload: { ...body, api_key: wrong } })
  const failed = await app.inject({ method: 'POST', url: '/api/v1/ai/settings/test', headers: auth(u.token) })
  t.equal(failed.statusCode, 200)
  t.equal(failed.json().data.ok, false)
  t.match(failed.json().data.error, /401.*Incorrect API key provided: \[redacted\]/)
  t.notOk(failed.body.includes(wrong), 'the provider echoed the key; the answer does not')
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: auth(u.token), payload: body })

  t.notOk(databaseText(app.dataDir).includes(KEY), 'the key is not in the database files in clear')
  t.notOk(databaseText(app.dataDir).includes(wrong))
  t.ok(databaseText(app.dataDir).includes('embed-1'), 'the scan does read the database (the model name is there)')

  // '' removes the key.
  const removed = await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: auth(u.token), payload: { ...body, api_key: '' } })
  t.equal(removed.json().data.configured, false)
  const del = await app.inject({ method: 'DELETE', url: '/api/v1/ai/settings', headers: auth(u.token) })
  t.equal(del.statusCode, 200)
  t.same(del.json().data, { deleted: true })
  const noTest = await app.inject({ method: 'POST', url: '/api/v1/ai/settings/test', headers: auth(u.token) })
  t.equal(noTest.statusCode, 422)
  t.equal(noTest.json().error.code, 'UNPROCESSABLE')
})

t.test('only an admin may set base_url (no outbound URL from a non-admin)', async (t) => {
  const stub = await startProviderStub(t)
  const app = await build(t, { env: { HEARTH_AI_OLLAMA_URL: 'http://127.0.0.1:1' } })
  const o = await owner(app)
  const u = await addUser(app, o.token)
  const admin = await addUser(app, o.token, { role: 'admin' })
  const body = { provider: 'ollama', model: 'llava', embedding_model: 'nomic-embed-text', base_url: stub.url }

  const refused = await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: auth(u.token), payload: body })
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().error.code, 'FORBIDDEN')
  t.same(
    (await app.inject({ method: 'GET', url: '/api/v1/ai/settings', headers: auth(u.token) })).json().data.provider,
    null,
    'nothing saved',
  )
  t.equal(stub.calls.length, 0)

  for (const token of [admin.token, o.token]) {
    const ok = await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: auth(token), payload: body })
    t.equal(ok.statusCode, 200, ok.body)
    t.equal(ok.json().data.base_url, stub.url)
    const test = await app.inject({ method: 'POST', url: '/api/v1/ai/settings/test', headers: auth(token) })
    t.match(test.json().data, { ok: true, provider: 'ollama', dimensions: DIMS })
    t.equal(stub.calls.at(-1)!.path, '/api/embed', "Ollama's /api/embed")
    t.equal(stub.calls.at(-1)!.authorization, null, 'no key, no Authorization header')
  }

  for (const bad of ['file:///etc/passwd', 'not a url', 'http://user:pw@127.0.0.1/']) {
    const res = await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: auth(o.token), payload: { ...body, base_url: bad } })
    t.equal(res.statusCode, 400, bad)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }
  const badProvider = await app.inject({
    method: 'PUT',
    url: '/api/v1/ai/settings',
    headers: auth(o.token),
    payload: { ...body, provider: 'gemini' },
  })
  t.equal(badProvider.statusCode, 400)

  // The instance URL serves users without a custom one: here nothing listens, so the test reports it.
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: auth(u.token), payload: { ...body, base_url: undefined } })
  const down = await app.inject({ method: 'POST', url: '/api/v1/ai/settings/test', headers: auth(u.token) })
  t.equal(down.statusCode, 200)
  t.match(down.json().data, { ok: false, error: /unreachable at http:\/\/127\.0\.0\.1:1/ })
})

t.test('free users keep the settings; every pro route answers 403 FEATURE_NOT_AVAILABLE', async (t) => {
  const app = await build(t) // HEARTH_TIER defaults to free
  const o = await owner(app)
  const headers = auth(o.token)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/ai/settings', headers })).statusCode, 200)
  const put = await app.inject({
    method: 'PUT',
    url: '/api/v1/ai/settings',
    headers,
    payload: { provider: 'openai', model: 'gpt-4o-mini', embedding_model: 'text-embedding-3-small', api_key: KEY },
  })
  t.equal(put.statusCode, 200)
  await expectProOnly(t, app, o.token, [
    ['POST', '/api/v1/ai/reindex'],
    ['GET', '/api/v1/ai/index'],
    ['GET', '/api/v1/search/semantic?q=hello'],
    ['GET', '/api/v1/search/semantic?q=hello&mode=hybrid'],
  ])
})
