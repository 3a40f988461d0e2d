import { type Command, EXIT } from './command.js'

/**
 * The slot for `hearth mcp` (the MCP server on stdio for local agents). The MCP plugin
 * provides the runner; until it is wired here the command says so and fails.
 */
export const mcp: Command = {
  name: 'mcp',
  summary: 'Serve the Model Context Protocol on stdio (needs the mcp plugin)',
  usage: 'hearth mcp',
  help: 'Not available in this build: it needs the mcp plugin, which provides the stdio runner.',
  async run() {
    process.stderr.write('hearth: `hearth mcp` needs the mcp plugin, which this build does not include\n')
    return EXIT.FAILURE
  },
}
