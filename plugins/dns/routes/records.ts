import { ListOf, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { Deleted, DnsRecord, RecordBody, RecordParams, Template, TemplateBody, ZoneParams } from '../schemas.js'
import type { DnsServices } from '../services/index.js'
import { renderTemplate, TEMPLATES } from '../services/templates.js'
import { Type } from '@sinclair/typebox'

/** /dns/zones/:id/records, /dns/templates and apply-template. */
export async function recordRoutes(app: PluginInstance, s: DnsServices) {
  const user = (req: { auth: { userId: string | null } }) => req.auth.userId as string

  app.get(
    '/zones/:id/records',
    { schema: { tags: ['dns'], params: ZoneParams, response: { 200: ListOf(DnsRecord) } }, config: { envelope: 'list' } },
    async (req) => {
      const items = await s.records.list(user(req), req.params.id)
      return { items, total: items.length }
    },
  )

  app.post(
    '/zones/:id/records',
    { schema: { tags: ['dns'], params: ZoneParams, body: RecordBody, response: { 201: Single(DnsRecord) } } },
    async (req, reply) => {
      const record = await s.records.create(user(req), req.params.id, req.body as never)
      reply.code(201)
      return record
    },
  )

  app.put(
    '/zones/:id/records/:recordId',
    { schema: { tags: ['dns'], params: RecordParams, body: RecordBody, response: { 200: Single(DnsRecord) } } },
    async (req) => s.records.update(user(req), req.params.id, req.params.recordId, req.body as never),
  )

  app.delete(
    '/zones/:id/records/:recordId',
    { schema: { tags: ['dns'], params: RecordParams, response: { 200: Single(Deleted) } } },
    async (req) => s.records.remove(user(req), req.params.id, req.params.recordId),
  )

  app.get('/templates', { schema: { tags: ['dns'], response: { 200: ListOf(Template) } }, config: { envelope: 'list' } }, async () => ({
    items: TEMPLATES,
    total: TEMPLATES.length,
  }))

  app.post(
    '/zones/:id/apply-template',
    { schema: { tags: ['dns'], params: ZoneParams, body: TemplateBody, response: { 201: Single(Type.Array(DnsRecord)) } } },
    async (req, reply) => {
      const { template, variables } = req.body as { template: string; variables: Record<string, string> }
      const records = await s.records.insertValidated(user(req), req.params.id, renderTemplate(template, variables))
      reply.code(201)
      return records
    },
  )
}
