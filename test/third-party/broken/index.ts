/** A third-party plugin whose registration throws: the daemon must drop it and keep running. */
import { definePlugin } from '../../../core/plugin-api.js'

export default definePlugin({ name: 'broken', version: '0.1.0', apiVersion: '^1.0.0' }, async (app) => {
  app.get('/', async () => ({ reachable: true }))
  throw new Error('broken plugin failed on purpose')
})
