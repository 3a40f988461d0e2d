import { definePlugin } from '../../core/plugin-api.js'
import type { DigestPluginService } from '../digest/public.js'
import type { RecordsPluginService } from '../records/public.js'
import { mailings } from './mailings.js'

/**
 * Invitations by email (iMIP) to the attendees of members' events who are not members of this
 * instance, through the instance's SMTP server when one is configured. No routes: it follows the
 * records' event changes.
 */
export default definePlugin(
  {
    name: 'imip',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: "Invitation emails (iMIP) to events' attendees outside the household",
    dependencies: ['records', 'digest'],
    migrations: new URL('./migrations/', import.meta.url),
  },
  async (_app, api) => {
    const { mailer } = api.services.get<DigestPluginService>('digest')
    const { service } = api.services.get<RecordsPluginService>('records')
    const mail = mailings({ db: api.db, mailer, records: service, member: api.auth.member, log: api.log, now: api.now })
    api.events.on('event.*', (e) => (e.type === 'event.imported' ? undefined : mail.changed(e)))
  },
)
