import { HttpError } from '../../errors.js'
import type { PluginInstance } from '../../plugin-api.js'
import { everything, IdParams, ListOf, Single } from '../../schemas.js'
import type { SessionRow } from '../tokens.js'
import { AppPassword, AppPasswordBody, CreatedAppPassword, SessionInfo } from '../schemas.js'
import type { AuthRoutesOptions } from './index.js'

const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

/** The caller's app passwords (their devices' DAV credentials) and their signed-in sessions. */
export async function deviceRoutes(app: PluginInstance, { appPasswords, tokens }: AuthRoutesOptions) {
  const own = { scope: 'general', userContext: true } as const

  app.post(
    '/auth/app-passwords',
    {
      config: { ...own, secret: true },
      schema: {
        summary: 'Create an app password for a device',
        description:
          "The password is in this answer only (Hearth keeps its SHA-256). It signs in to CalDAV/CardDAV (/dav/, HTTP Basic with the user's email) and nowhere else, without a second factor.",
        body: AppPasswordBody,
        response: { 201: Single(CreatedAppPassword) },
      },
    },
    async (req, reply) => {
      reply.code(201)
      return appPasswords.create(req.userId, req.body.name)
    },
  )

  app.get(
    '/auth/app-passwords',
    { config: own, schema: { summary: "List the caller's app passwords with their last use", response: { 200: ListOf(AppPassword) } } },
    async (req) => everything(appPasswords.list(req.userId)),
  )

  app.delete(
    '/auth/app-passwords/:id',
    {
      config: own,
      schema: { summary: 'Revoke an app password', params: IdParams, response: { 200: Single(AppPassword) } },
    },
    async (req) => appPasswords.revoke(req.userId, req.params.id),
  )

  const publicSession = (row: SessionRow, current: string | undefined) => ({
    id: row.id,
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
    client: row.client,
    address: row.address,
    current: row.id === current,
  })

  app.get(
    '/auth/sessions',
    {
      config: own,
      schema: {
        summary: "List the caller's signed-in sessions",
        description: 'One per sign-in (refresh-token family): when it began, when its tokens were last refreshed, and from which client.',
        response: { 200: ListOf(SessionInfo) },
      },
    },
    async (req) => everything(tokens.sessions(req.userId).map((row) => publicSession(row, req.auth.sessionId))),
  )

  app.delete(
    '/auth/sessions/:id',
    {
      config: own,
      schema: {
        summary: 'Sign a session out',
        description: 'Its refresh token and its access tokens stop working at once.',
        params: IdParams,
        response: { 200: Single(SessionInfo) },
      },
    },
    async (req) => {
      const row = tokens.sessions(req.userId).find((s) => s.id === req.params.id)
      if (!row || !tokens.revokeSession(req.userId, row.id)) throw new HttpError('NOT_FOUND', 'Session not found')
      return publicSession(row, req.auth.sessionId)
    },
  )
}
