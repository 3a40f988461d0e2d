import type { PluginInstance } from '../../../core/plugin-api.js'
import { resourceRoutes } from './resource.js'
import type { EventOccurrences } from '../resources/event-occurrences.js'
import type { RecordsService } from '../service.js'

/** CRUD, list, custom-field merge, delete and restore for every resource, from its definition. */
export async function recordRoutes(
  app: PluginInstance,
  { service, occurrences }: { service: RecordsService; occurrences: EventOccurrences },
): Promise<void> {
  for (const resource of service.resources) {
    const def = service.definition(resource)
    resourceRoutes(app, service, def, def.expansion ? occurrences : undefined)
  }
}
