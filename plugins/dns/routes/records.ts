import { ListOf, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { Deleted, DnsRecord, RecordBody, RecordParams, Template, TemplateBody, ZoneParams } from '../schemas.js'
import type { DnsServices } from '../services/index.js'
import { renderTemplate, TEMPLATES } from '../services/templates.js'
import { Type } from '@sinclair/typebox'

/** /dns/zones/:id/records, /dns/templates and apply-template. */
export async function recordRoutes(app: PluginInstance, s: DnsServices) {
  app.get(
    '/zones/:id/records',
    {
      schema: { summary: 'List the records of a zone', tags: ['dns'], params: ZoneParams, response: { 200: ListOf(DnsRecord) } },
    },
    async (req) => {
      const items = await s.records.list(req.userId, req.params.id)
      return { items, total: items.length }
    },
  )

  app.post(
    '/zones/:id/records',
    {
      config: { errors: ['CONFLICT', 'UNPROCESSABLE', 'PROVIDER_ERROR'] },
      schema: {
        summary: 'Add a record to a zone',
        tags: ['dns'],
        params: ZoneParams,
        body: RecordBody,
        response: { 201: Single(DnsRecord) },
      },
    },
    async (req, reply) => {
      const record = await s.records.create(req.userId, req.params.id, req.body as never)
      reply.code(201)
      return record
    },
  )

  app.put(
    '/zones/:id/records/:recordId',
    {
      config: { errors: ['CONFLICT', 'UNPROCESSABLE', 'PROVIDER_ERROR'] },
      schema: { summary: 'Replace a record', tags: ['dns'], params: RecordParams, body: RecordBody, response: { 200: Single(DnsRecord) } },
    },
    async (req) => s.records.update(req.userId, req.params.id, req.params.recordId, req.body as never),
  )

  app.delete(
    '/zones/:id/records/:recordId',
    {
      config: { errors: ['PROVIDER_ERROR'] },
      schema: { summary: 'Delete a record', tags: ['dns'], params: RecordParams, response: { 200: Single(Deleted) } },
    },
    async (req) => s.records.remove(req.userId, req.params.id, req.params.recordId),
  )

  app.get(
    '/templates',
    { schema: { summary: 'List the record templates', tags: ['dns'], response: { 200: ListOf(Template) } } },
    async () => ({
      items: TEMPLATES,
      total: TEMPLATES.length,
    }),
  )

  app.post(
    '/zones/:id/apply-template',
    {
      config: { errors: ['CONFLICT', 'UNPROCESSABLE', 'PROVIDER_ERROR'] },
      schema: {
        operationId: 'dnsZones.applyTemplate',
        summary: 'Add the records of a template to a zone',
        tags: ['dns'],
        params: ZoneParams,
        body: TemplateBody,
        response: { 201: Single(Type.Array(DnsRecord)) },
      },
    },
    async (req, reply) => {
      const { template, variables } = req.body as { template: string; variables: Record<string, string> }
      const records = await s.records.insertValidated(req.userId, req.params.id, renderTemplate(template, variables))
      reply.code(201)
      return records
    },
  )
}
