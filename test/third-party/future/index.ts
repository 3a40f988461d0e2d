/** A plugin targeting a plugin API this core does not provide: refused at registration. */
import { definePlugin } from '../../../core/plugin-api.js'

export default definePlugin({ name: 'future', version: '3.0.0', apiVersion: '^2.0.0' }, async (app) => {
  app.get('/', async () => ({ loaded: true }))
})
