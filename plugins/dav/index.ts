import { definePlugin } from '../../core/plugin-api.js'
import type { RecordsPluginService } from '../records/public.js'
import { createObjects } from './objects-service.js'
import { davRoutes } from './routes.js'
import { davStore } from './store.js'
import { contactGroups } from './contact-groups.js'

/**
 * CalDAV and CardDAV at /dav/ (docs/api.md, "CalDAV and CardDAV"): the records
 * plugin's contacts and events as one address book and one calendar per calendar_name,
 * signed in with HTTP Basic (email + an API key of scope `dav`). See README.md.
 */
export default definePlugin(
  {
    name: 'dav',
    version: '1.0.0',
    apiVersion: '^1.1.0',
    description: 'CalDAV and CardDAV for phones and desktop clients',
    dependencies: ['records'],
    root: true,
    prefix: '',
    migrations: new URL('./migrations/', import.meta.url),
  },
  async (app, api) => {
    const store = davStore(api.db)
    const records = api.services.get<RecordsPluginService>('records')
    const groups = contactGroups(api.db, records.service, store)
    const objects = createObjects({
      records,
      store,
      groups,
      events: api.events,
      now: api.now,
      member: (id) => api.auth.member(id),
    })
    await davRoutes(app, api, objects, store)
  },
)
