/**
 * MCP bench: the same full-text search as an MCP `tools/call search` (POST
 * /api/v1/mcp, one JSON-RPC request, the tool running the REST list route
 * through app.inject) and as the REST request itself (GET /api/v1/notes?search=),
 * against one daemon in its own process, loaded from this process with
 * autocannon; req/s of both and their ratio, in the same run.
 */
import { pathToFileURL } from 'node:url'
import { compileCheck } from '../../core/validation.js'
import { databasePath, openDatabase } from '../../core/db/sqlite.js'
import { createRecordsService } from '../../plugins/records/service.js'
import { load, ownerWithKey, startDaemon } from './harness.js'

const NOTES = 5_000
const WORD = 'quarterly'
/** Far above what the load sends in a minute: the bench measures the server, not the limiter. */
const RATE_LIMIT = '100000000'

export async function benchMcp(): Promise<Record<string, number | string>> {
  const daemon = await startDaemon({ HEARTH_RATE_LIMIT: RATE_LIMIT })
  try {
    const { key, userId } = await ownerWithKey(daemon.url, 'agent')
    const db = openDatabase(databasePath(daemon.dataDir))
    const service = createRecordsService({ validator: compileCheck, db, events: { emit: () => undefined as never }, now: Date.now })
    const notes = Array.from({ length: NOTES }, (_, i) => ({
      title: `Note ${i}`,
      content: `Minutes of meeting ${i}${i % 100 === 0 ? ` about the ${WORD} report` : ''}, with a few more words.`,
    }))
    service.importMany(userId, 'notes', notes, { emit: false })
    db.close()

    const headers = { authorization: `Bearer ${key}` }
    const restUrl = `${daemon.url}/api/v1/notes?search=${WORD}&format=compact`
    const mcpUrl = `${daemon.url}/api/v1/mcp`
    const mcpHeaders = {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    }
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: WORD, types: ['notes'] } },
    })
    const check = (await (await fetch(mcpUrl, { method: 'POST', headers: mcpHeaders, body })).json()) as {
      result: { structuredContent: { notes: { total: number } } }
    }
    const hits = check.result.structuredContent.notes.total

    await load(restUrl, { headers, seconds: 1 }) // warm-up
    const rest = await load(restUrl, { headers, seconds: 4 })
    await load(mcpUrl, { headers: mcpHeaders, method: 'POST', body, seconds: 1 })
    const mcp = await load(mcpUrl, { headers: mcpHeaders, method: 'POST', body, seconds: 4 })
    return {
      'HEARTH_RATE_LIMIT (per key per minute)': RATE_LIMIT,
      [`notes / hits for "${WORD}"`]: `${NOTES} / ${hits}`,
      'REST GET /notes?search req/s': rest.rps,
      'REST p99 ms': rest.p99,
      'MCP tools/call search req/s': mcp.rps,
      'MCP p99 ms': mcp.p99,
      'MCP / REST req/s ratio': Math.round((mcp.rps / rest.rps) * 100) / 100,
      'errors (both loads)': rest.errors + mcp.errors,
    }
  } finally {
    await daemon.stop()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchMcp())
}
