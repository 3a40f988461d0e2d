import { type Command, EXIT } from './command.js'

/**
 * `hearth mcp`: the MCP server on stdio for local agents, bridged to the daemon's
 * streamable-HTTP endpoint. A client of the API (possibly of another machine's daemon):
 * it reads no config and never opens the data folder.
 */
export const mcp: Command = {
  name: 'mcp',
  summary: 'Serve the Model Context Protocol on stdio, bridged to the daemon (HEARTH_API_KEY)',
  usage: 'hearth mcp',
  maxArgs: 0,
  help: `environment:
  HEARTH_API_KEY   an API key (scope agent) the tools act with (required)
  HEARTH_URL       the daemon's base URL (default http://127.0.0.1:7200)
  HEARTH_USER_ID   the user a system key acts for (X-Svc-User-Id), multi-user mode

stdout carries only MCP messages; diagnostics go to stderr. docs/agents.md has client snippets.
exit codes: 0 when the client closes stdin, 2 without HEARTH_API_KEY.`,
  async run() {
    const { runMcpStdio } = await import('../../plugins/mcp/stdio.js')
    const code = await runMcpStdio({ env: process.env, input: process.stdin, output: process.stdout, errors: process.stderr })
    return code === 0 ? EXIT.OK : code
  },
}
