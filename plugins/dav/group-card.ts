import { HttpError } from '../../core/plugin-api.js'
import { parseComponents } from '../../lib/content-line/components.js'
import { contentLine, escapeText, unescapeText } from '../../lib/content-line/lines.js'

/**
 * A contact group's card, as Apple's Contacts writes one (CalendarServer's shape): a vCard with
 * `X-ADDRESSBOOKSERVER-KIND:group`, its name in FN, one `X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:<UID>`
 * per member; vCard 4.0's `KIND:group` and `MEMBER` are read alike. What the groups mean is
 * contact-groups.ts's.
 */

/** A member's UID as a group card names it, without its `urn:uuid:`. */
export const bareUid = (uid: string) => uid.trim().replace(/^urn:uuid:/i, '')

/** Whether a vCard is a group card (Apple's X-ADDRESSBOOKSERVER-KIND or vCard 4.0's KIND). */
export function isGroupCard(text: string): boolean {
  const card = parseComponents(text).roots[0]
  const kind = card?.properties.find((p) => p.name === 'KIND' || p.name === 'X-ADDRESSBOOKSERVER-KIND')
  return kind !== undefined && unescapeText(kind.value).trim().toLowerCase() === 'group'
}

/** The group's name, its card's UID and the member UIDs it names (each once); 400 for a card without a name. */
export function readGroupCard(text: string): { grp: string; uid: string | null; members: string[] } {
  const { roots } = parseComponents(text)
  const card = roots[0]
  if (roots.length !== 1 || !card || card.name !== 'VCARD')
    throw new HttpError('VALIDATION_ERROR', 'the body must hold exactly one vCard', { field: 'body', constraint: 'format' })
  const value = (name: string) => card.properties.find((p) => p.name === name)?.value
  const grp = unescapeText(value('FN') ?? value('N')?.split(';')[0] ?? '').trim()
  if (!grp || grp.length > 200 || /[\u0000-\u001f]/.test(grp))
    throw new HttpError('VALIDATION_ERROR', 'a group card needs its name in FN (at most 200 characters)', {
      field: 'FN',
      constraint: 'required',
    })
  const members = card.properties
    .filter((p) => p.name === 'X-ADDRESSBOOKSERVER-MEMBER' || p.name === 'MEMBER')
    .map((p) => bareUid(unescapeText(p.value)))
    .filter(Boolean)
  const uid = value('UID')
  return { grp, uid: uid ? unescapeText(uid).trim() : null, members: [...new Set(members)] }
}

/** The card Hearth writes for a group (vCard 3.0, as iOS reads it). */
export function writeGroupCard(grp: string, uid: string, memberUids: string[]): string {
  const lines = [
    'BEGIN:VCARD',
    'VERSION:3.0',
    'PRODID:-//Hearth//Hearth Records//EN',
    contentLine('N', [], escapeText(grp)),
    contentLine('FN', [], escapeText(grp)),
    'X-ADDRESSBOOKSERVER-KIND:group',
    contentLine('UID', [], escapeText(uid)),
    ...memberUids.map((member) => contentLine('X-ADDRESSBOOKSERVER-MEMBER', [], `urn:uuid:${member}`)),
    'END:VCARD',
  ]
  return `${lines.join('\r\n')}\r\n`
}
