import type { PluginInstance } from '../../../core/plugin-api.js'
import { resourceRoutes } from '../engine/routes.js'
import type { RecordsService } from '../service.js'

/** CRUD, list, custom-field merge, delete and restore for every resource, from its definition. */
export async function recordRoutes(app: PluginInstance, { service }: { service: RecordsService }): Promise<void> {
  for (const resource of service.resources) resourceRoutes(app, service, service.definition(resource))
}
