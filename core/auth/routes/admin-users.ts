import { HttpError } from '../../errors.js'
import type { PluginInstance } from '../../plugin-api.js'
import { everything, IdParams, ListOf, Single } from '../../schemas.js'
import { Invitation, InviteBody, User, UserPatch } from '../schemas.js'
import type { AuthRoutesOptions } from './index.js'

export async function adminUserRoutes(app: PluginInstance, { users, service, accounts }: AuthRoutesOptions) {
  const admin = { role: 'admin', scope: 'admin' } as const

  app.get('/admin/users', { config: { ...admin }, schema: { summary: 'List the users', response: { 200: ListOf(User) } } }, async () =>
    everything(users.list().map(users.toPublic)),
  )

  app.patch(
    '/admin/users/:id',
    {
      config: { ...admin, errors: ['UNPROCESSABLE'] },
      schema: {
        summary: "Change a user's role, tier, name or disabled state",
        description:
          'Only an owner makes or unmakes owners; the last owner cannot be demoted or disabled (422). Disabling signs the user out everywhere.',
        params: IdParams,
        body: UserPatch,
        response: { 200: Single(User) },
      },
    },
    async (req) => {
      const target = users.get(req.params.id)
      if (!target) throw new HttpError('NOT_FOUND', 'User not found')
      return users.toPublic(accounts.updateUser(req.auth, target, req.body))
    },
  )

  app.post(
    '/admin/invitations',
    {
      config: { ...admin, errors: ['CONFLICT'], secret: true },
      schema: {
        summary: 'Invite a user by email',
        description: 'Answers the invitation token the invitee registers with (POST /auth/register).',
        body: InviteBody,
        response: { 201: Single(Invitation) },
      },
    },
    async (req, reply) => {
      reply.code(201)
      return service.invite({ email: req.body.email, role: req.body.role ?? 'user' }, req.auth.userId)
    },
  )
}
