import { readFileSync } from 'node:fs'
import t from 'tap'
import { currentTools, DOC, toolTable, withTable } from '../tool-table.js'

t.test('docs/agents.md lists the tools tools/list answers', async (t) => {
  const doc = readFileSync(DOC, 'utf8')
  const tools = await currentTools()
  t.equal(tools.length, 31)
  t.equal(doc, withTable(doc, toolTable(tools)), 'the generated table is in step (node dist/plugins/mcp/tool-table.js --write)')
})
