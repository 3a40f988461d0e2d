import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'

/** OpenAPI 3 from the routes' TypeBox schemas; served at /api/v1/openapi.json and /api/v1/docs. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Hearth API',
        version,
        description: 'Self-hosted personal data daemon. Envelope: {data} / {data, meta, tier} / {error}.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    hideUntagged: false,
  })
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs', uiConfig: { deepLinking: true } })
  app.get('/api/v1/openapi.json', { config: { auth: false, envelope: 'none' }, schema: { hide: true } }, async () => app.swagger())
}
