import { jsonBytesAtLeast } from '../../lib/json-size.js'
import { firstCodePoints } from '../../lib/text-prefix.js'
import type { Digest, DigestChange } from './compose.js'
import { renderMarkdown } from './render.js'

/**
 * The body a digest webhook POSTs, within a byte budget: a digest lists up to 500 entries a
 * section, and an event's location or a contact's name has no length of its own, so the whole
 * could run to hundreds of megabytes, built in memory and sent to a URL. Past the budget, long
 * texts are shortened, then the longest section loses its last entries until the body fits; the
 * digest then says `truncated: true` and the payload `cut: true` (the marker a receiver reads).
 */
export const WEBHOOK_BODY_LIMIT = 256 * 1024
/** Code points a title, location or calendar name keeps in a shortened body. */
const TEXT_LIMIT = 200

type Delivered = Digest & { markdown: string }

export function webhookBody(digest: Delivered, limit = WEBHOOK_BODY_LIMIT): string {
  const fits = (value: unknown): string | null => {
    // A lower bound past the limit: known not to fit without writing the text.
    if (jsonBytesAtLeast(value) > limit) return null
    const text = JSON.stringify(value)
    return Buffer.byteLength(text) <= limit ? text : null
  }
  const whole = fits({ event: 'digest', data: digest })
  if (whole !== null) return whole
  const short = <T extends string | null>(s: T): T => (s !== null && s.length > TEXT_LIMIT ? `${firstCodePoints(s, TEXT_LIMIT)}…` : s) as T
  const change = (c: DigestChange): DigestChange => ({ ...c, title: short(c.title) })
  const cut: Digest = {
    ...digest,
    truncated: true,
    events: digest.events.map((e) => ({ ...e, title: short(e.title), location: short(e.location), calendar_name: short(e.calendar_name) })),
    reminders: digest.reminders.map((r) => ({ ...r, title: short(r.title) })),
    tasks_due: digest.tasks_due.map((task) => ({ ...task, title: short(task.title), list_name: short(task.list_name) })),
    notes_changed: digest.notes_changed.map(change),
    contacts_changed: digest.contacts_changed.map(change),
  }
  for (;;) {
    const text = fits({ event: 'digest', cut: true, data: { ...cut, markdown: renderMarkdown(cut) } })
    if (text !== null) return text
    const sections = ['events', 'reminders', 'tasks_due', 'notes_changed', 'contacts_changed'] as const
    const longest = sections.reduce((a, b) => (cut[b].length > cut[a].length ? b : a))
    const list = cut[longest] as unknown[]
    // Nothing left to drop: the fixed fields alone are far below any budget, so this ends.
    if (list.length === 0) return JSON.stringify({ event: 'digest', cut: true, data: { ...cut, markdown: '' } })
    list.length = Math.floor(list.length / 2)
  }
}
