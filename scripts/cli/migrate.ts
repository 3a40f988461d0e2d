import { type Command, EXIT } from './command.js'

export const migrate: Command = {
  name: 'migrate',
  summary: "Apply the core's migrations (plugins migrate when the daemon starts)",
  usage: 'hearth migrate',
  maxArgs: 0,
  async run(_args, ctx) {
    ctx.openDb().close()
    ctx.out('core schema is up to date')
    return EXIT.OK
  },
}
