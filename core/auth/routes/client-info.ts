import type { FastifyRequest } from 'fastify'
import type { ClientInfo } from '../tokens.js'

/** Who signs in, as the sessions list shows it: the User-Agent and the client address (X-Forwarded-For from trusted proxies only). */
export const clientInfo = (req: FastifyRequest): ClientInfo & { address: string } => {
  const agent = req.headers['user-agent']
  return { address: req.ip, ...(typeof agent === 'string' && agent ? { userAgent: agent } : {}) }
}
