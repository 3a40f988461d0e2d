import { HttpError } from '../../errors.js'
import type { PluginInstance } from '../../plugin-api.js'
import { everything, IdParams, ListOf, Single } from '../../schemas.js'
import { Invitation, InviteBody, User, UserPatch } from '../schemas.js'
import type { AuthRoutesOptions } from './index.js'

export async function adminUserRoutes(app: PluginInstance, { users, service, tokens, events }: AuthRoutesOptions) {
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
      const patch = req.body
      const losesOwner = target.role === 'owner' && ((patch.role && patch.role !== 'owner') || patch.disabled === true)
      // Only an owner makes or unmakes owners.
      if ((patch.role === 'owner' || target.role === 'owner') && req.auth.role !== 'owner')
        throw new HttpError('FORBIDDEN', 'Owner role required')
      if (losesOwner && users.activeOwners() <= 1) throw new HttpError('UNPROCESSABLE', 'The last owner cannot be demoted or disabled')
      const updated = users.update(target.id, patch)
      if (patch.disabled) tokens.revokeAllForUser(target.id)
      // Live connections (the realtime hub) re-check what this user may see at once.
      events.emit('user.updated', { userId: target.id, id: target.id, data: users.toPublic(updated) })
      return users.toPublic(updated)
    },
  )

  app.post(
    '/admin/invitations',
    {
      config: { ...admin, errors: ['CONFLICT'] },
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
