import type { RouteEntry } from '../../core/plugin-api.js'
import { deriveInput, type InputShape, type JsonSchema, plain } from './tool-input.js'

/**
 * The MCP tools: each one stands for a REST route of the records plugin,
 * named here by its operationId; its input schema is derived from that
 * route's own schemas (tool-input.ts) and a call runs the route itself
 * (call.ts). `search` and `calendar` are the two list tools built on the
 * list routes.
 */
export const RESOURCES = { notes: 'note', contacts: 'contact', events: 'event', tasks: 'task' } as const
export type Resource = keyof typeof RESOURCES

export interface ToolAnnotations {
  title: string
  readOnlyHint: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint: false
}

export interface Tool {
  name: string
  title: string
  description: string
  inputSchema: JsonSchema
  annotations: ToolAnnotations
}

/** One tool bound to one route. */
export interface RouteTool {
  kind: 'route'
  tool: Tool
  route: RouteEntry
  shape: InputShape
  resource: Resource
}

/** search, calendar and due_tasks: list routes with the records' own filters. */
export interface ListTool {
  kind: 'search' | 'calendar' | 'due_tasks'
  tool: Tool
  routes: Partial<Record<Resource, { route: RouteEntry; shape: InputShape }>>
}

export type BoundTool = RouteTool | ListTool

/** Every tool answers the compact form (format=compact of the API) unless asked for the full records. */
export const Format: JsonSchema = {
  type: 'string',
  enum: ['compact', 'full'],
  default: 'compact',
  description:
    'compact (default): the short form agents need (null and empty values dropped); full: every field as the REST API answers (note content, contact addresses, event description and recurrence, custom fields)',
}

/** Verbs per resource: the operation (`<resource>.<verb>`) and the tool name it gets. */
const VERBS: Array<{ verb: string; name: (one: string) => string; only?: Resource; bodyAs?: string }> = [
  { verb: 'get', name: (one) => `get_${one}` },
  { verb: 'create', name: (one) => `create_${one}` },
  { verb: 'update', name: (one) => `update_${one}` },
  { verb: 'updateCustom', name: (one) => `update_${one}_custom_fields`, bodyAs: 'custom_fields' },
  { verb: 'delete', name: (one) => `delete_${one}` },
  { verb: 'restore', name: (one) => `restore_${one}` },
  { verb: 'archive', name: (one) => `archive_${one}`, only: 'notes' },
  { verb: 'unarchive', name: (one) => `unarchive_${one}`, only: 'notes' },
  { verb: 'complete', name: (one) => `complete_${one}`, only: 'tasks' },
  { verb: 'reopen', name: (one) => `reopen_${one}`, only: 'tasks' },
]

/** Read-only, destructive and idempotent hints from the HTTP method (MCP tool annotations). */
export function hintsOf(method: string, title: string): ToolAnnotations {
  switch (method) {
    case 'GET':
      return { title, readOnlyHint: true, openWorldHint: false }
    case 'POST':
      return { title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
    default: // PATCH, PUT, DELETE change or remove what exists
      return { title, readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }
  }
}

const describe = (route: RouteEntry, more: string) =>
  [route.schema.summary, route.schema.description, more].filter(Boolean).join('. ').replace(/\.\./g, '.')

/** Query parameters of the list routes a tool sets itself or offers once for all types. */
const LIST_OWN = ['limit', 'offset', 'search', 'format']

export type RouteLookup = (operationId: string) => RouteEntry | undefined

/** Builds every tool from the routes as registered; a missing route is a broken build (thrown). */
export function buildTools(lookup: RouteLookup): BoundTool[] {
  const need = (operationId: string) => {
    const route = lookup(operationId)
    if (!route) throw new Error(`MCP: route ${operationId} is not registered`)
    return route
  }
  const tools: BoundTool[] = [searchTool(need), calendarTool(need), dueTasksTool(need)]
  for (const [resource, one] of Object.entries(RESOURCES) as Array<[Resource, string]>) {
    for (const v of VERBS) {
      if (v.only && v.only !== resource) continue
      const route = need(`${resource}.${v.verb}`)
      const { schema, shape } = deriveInput(route, { bodyAs: v.bodyAs, extra: { format: Format } })
      const name = v.name(one)
      const title = route.schema.summary ?? name
      const more =
        v.verb === 'get'
          ? `Answers the compact form unless format is "full" (use full to read the whole ${one})`
          : 'Answers the compact form unless format is "full"'
      tools.push({
        kind: 'route',
        resource,
        route,
        shape,
        tool: { name, title, description: describe(route, more), inputSchema: schema, annotations: hintsOf(route.method, title) },
      })
    }
  }
  return tools
}

function searchTool(need: (id: string) => RouteEntry): ListTool {
  const routes: ListTool['routes'] = {}
  const filters: Record<string, JsonSchema> = {}
  for (const [resource, one] of Object.entries(RESOURCES) as Array<[Resource, string]>) {
    const route = need(`${resource}.list`)
    const { schema, shape } = deriveInput(route, { omitQuery: LIST_OWN })
    routes[resource] = { route, shape: { ...shape, query: [...shape.query, 'search', 'limit', 'offset'] } }
    filters[resource] = { ...schema, description: `Filters and sort of the ${one} list (the REST list's own parameters)` }
  }
  const notesQuery = plain(need('notes.list').schema.querystring).properties ?? {}
  const title = 'Search notes, contacts, events and tasks'
  const inputSchema: JsonSchema = {
    type: 'object',
    properties: {
      query: {
        ...notesQuery.search,
        description: 'full text, prefix matching, ranked by relevance unless a sort is given; leave out to list by filters only',
      },
      types: {
        type: 'array',
        items: { type: 'string', enum: Object.keys(RESOURCES) },
        uniqueItems: true,
        minItems: 1,
        description: 'which records to search; default all of them',
      },
      limit: { ...notesQuery.limit, description: 'per type' },
      offset: { ...notesQuery.offset, description: 'per type' },
      format: Format,
      ...filters,
    },
    additionalProperties: false,
  }
  return {
    kind: 'search',
    routes,
    tool: {
      name: 'search',
      title,
      description:
        'Full-text search across notes, contacts, events and tasks, with each list\'s filters (notes: tag, pinned, archived; contacts: tag, company; events: date, from, to, calendar_name, status; tasks: status, list_name, due_before, due_after, tag, parent_id; all: source, include_deleted, only_deleted, sort, order). Answers { notes: { items, total }, contacts: ..., events: ..., tasks: ... } for the types searched; compact items unless format is "full"',
      inputSchema,
      annotations: hintsOf('GET', title),
    },
  }
}

/** Parameters of the events list the calendar tool offers. */
const CALENDAR = ['date', 'from', 'to', 'calendar_name', 'status', 'search', 'limit', 'offset']

function calendarTool(need: (id: string) => RouteEntry): ListTool {
  const route = need('events.list')
  const { schema, shape } = deriveInput(route, { pickQuery: CALENDAR, extra: { format: Format } })
  const title = 'What is on the calendar'
  return {
    kind: 'calendar',
    routes: { events: { route, shape } },
    tool: {
      name: 'calendar',
      title,
      description:
        'Events in a time range, recurring events expanded into their occurrences (in the compact form an occurrence carries the id of its series and its own start_at; the full form adds recurrence_id and occurrence_start), in start order. Give date (today, tomorrow, this_week, this_month or YYYY-MM-DD, in the household\'s time zone) or from/to; with neither, this week. Answers { items, total, limit, offset }; compact items unless format is "full"',
      inputSchema: schema,
      annotations: hintsOf('GET', title),
    },
  }
}

/** Parameters of the tasks list the due_tasks tool offers. */
const DUE = ['due_before', 'due_after', 'status', 'list_name', 'tag', 'search', 'sort', 'order', 'limit', 'offset']

function dueTasksTool(need: (id: string) => RouteEntry): ListTool {
  const route = need('tasks.list')
  const { schema, shape } = deriveInput(route, { pickQuery: DUE, extra: { format: Format } })
  const title = 'Tasks that are due'
  return {
    kind: 'due_tasks',
    routes: { tasks: { route, shape } },
    tool: {
      name: 'due_tasks',
      title,
      description:
        'Open tasks (status needs-action or in-process unless status is given) due up to due_before (a datetime, or YYYY-MM-DD for the end of that day in the household\'s time zone; default: the next 7 days), overdue ones included, soonest first. Complete one with complete_task: a recurring task then moves to its next due date. Answers { items, total, limit, offset }; compact items unless format is "full"',
      inputSchema: schema,
      annotations: hintsOf('GET', title),
    },
  }
}

/** What tools/list answers. */
export const listed = (tools: BoundTool[]): Tool[] => tools.map((t) => t.tool)
