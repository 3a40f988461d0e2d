import { HttpError } from '../errors.js'
import type { EventBus } from '../events.js'
import type { Role, Tier } from '../schemas.js'
import { keyManagementRefusal } from './access.js'
import { type ApiKeyRow, type ApiKeys, publicKey } from './api-keys.js'
import type { KeyScope } from './context.js'
import type { Tokens } from './tokens.js'
import type { UserRow, Users } from './users.js'

/** Who asks: their role, and their user id (null for the system token before any user exists). */
export interface Actor {
  role: Role
  userId: string | null
}

export interface UserChange {
  role?: Role
  tier?: Tier | null
  disabled?: boolean
  name?: string | null
}

/**
 * The rules of managing accounts, whichever path asks (the admin API, the CLI on a stopped daemon):
 * who may make or revoke which API key, and who may change which user.
 */
export function createAccounts(deps: { users: Users; apiKeys: ApiKeys; tokens: Tokens; events: EventBus }) {
  const { users, apiKeys } = deps

  const refuseKey = (actor: Actor, holder: UserRow, scope?: KeyScope) => {
    const why = keyManagementRefusal(actor.role, holder.role, scope)
    if (why) throw new HttpError('FORBIDDEN', why)
  }

  return {
    /** A new key of `scope` (default agent) for `userId` (default the actor), made by the actor. */
    createKey(actor: Actor, input: { userId?: string | undefined; scope?: KeyScope | undefined; label?: string | null | undefined }) {
      const userId = input.userId ?? actor.userId
      if (!userId)
        throw new HttpError('VALIDATION_ERROR', 'user_id is required without a user context', { field: 'user_id', constraint: 'required' })
      const holder = users.get(userId)
      if (!holder) throw new HttpError('VALIDATION_ERROR', 'user_id names no user', { field: 'user_id', constraint: 'exists' })
      const scope = input.scope ?? 'agent'
      refuseKey(actor, holder, scope)
      return apiKeys.create(holder.id, scope, input.label ?? null, actor.userId)
    },

    /** Revokes a key (404 when there is no active one); live connections made with it close at once. */
    revokeKey(actor: Actor, id: string): ApiKeyRow {
      const row = apiKeys.get(id)
      const holder = row && users.get(row.user_id)
      if (!row || row.revoked_at || !holder) throw new HttpError('NOT_FOUND', 'API key not found')
      refuseKey(actor, holder)
      apiKeys.revoke(id)
      const revoked = apiKeys.get(id) as ApiKeyRow
      deps.events.emit('api_key.revoked', { userId: revoked.user_id, id: revoked.id, data: publicKey(revoked) })
      return revoked
    },

    /**
     * Changes a user's role, tier, name or disabled state. Only an owner makes or unmakes owners;
     * the last active owner is never demoted or disabled (422); disabling signs the user out everywhere.
     */
    updateUser(actor: Actor, target: UserRow, patch: UserChange): UserRow {
      const losesOwner = target.role === 'owner' && ((patch.role && patch.role !== 'owner') || patch.disabled === true)
      if ((patch.role === 'owner' || target.role === 'owner') && actor.role !== 'owner')
        throw new HttpError('FORBIDDEN', 'Owner role required')
      if (losesOwner && users.activeOwners() <= 1) throw new HttpError('UNPROCESSABLE', 'The last owner cannot be demoted or disabled')
      const updated = users.update(target.id, patch)
      if (patch.disabled) deps.tokens.revokeAllForUser(target.id)
      // Live connections (the realtime hub) re-check what this user may see at once.
      deps.events.emit('user.updated', { userId: target.id, id: target.id, data: users.toPublic(updated) })
      return updated
    },
  }
}
export type Accounts = ReturnType<typeof createAccounts>
