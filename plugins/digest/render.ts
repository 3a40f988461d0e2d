import type { Digest, DigestChange, DigestEvent, DigestReminder, DigestTask } from './compose.js'

/** The Markdown line of each kind of entry, with times in `zone` (the composer measures entries with them). */
export interface EntryLines {
  event(e: DigestEvent): string
  reminder(r: DigestReminder): string
  task(t: DigestTask): string
  change(c: DigestChange): string
}

export function entryLines(zone: string): EntryLines {
  const dayUtc = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' })
  const dayShort = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short' })
  const time = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
  const at = (iso: string) => `${dayShort.format(new Date(iso))} ${time.format(new Date(iso))}`
  return {
    event(e) {
      // All-day events are dates: shown as their UTC date, whatever the zone.
      const when = e.all_day
        ? `${dayUtc.format(new Date(e.start_at))}, all day`
        : `${at(e.start_at)}${e.end_at ? `–${time.format(new Date(e.end_at))}` : ''}`
      return `- **${when}** ${escape(e.title)}${e.location ? ` · ${escape(e.location)}` : ''}`
    },
    reminder: (r) =>
      `- ${at(r.remind_at)}: ${escape(r.title)} (${r.minutes_before === 0 ? 'at the start' : `${minutes(r.minutes_before)} before`}, ${r.type})`,
    task(task) {
      const when = task.all_day ? dayUtc.format(new Date(task.due_at)) : at(task.due_at)
      return `- ${task.overdue ? '**overdue** ' : ''}${when}: ${escape(task.title)}${task.list_name === 'default' ? '' : ` (${escape(task.list_name)})`}`
    },
    change: (c) => `- ${escape(c.title)} (${c.change === 'created' ? 'new' : 'updated'})`,
  }
}

/** The digest as Markdown (the email's text, the `markdown` field): times in the instance's zone. */
export function renderMarkdown(d: Digest): string {
  const zone = d.timezone
  const day = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })
  const line = entryLines(zone)
  const lines: string[] = [
    `# Your ${d.period === 'day' ? 'daily' : 'weekly'} Hearth digest`,
    '',
    `${day.format(new Date(d.upcoming.from))} (${zone})`,
    '',
    '## Coming up',
    '',
  ]
  if (d.events.length === 0) lines.push('Nothing on the calendar.')
  for (const e of d.events) lines.push(line.event(e))
  lines.push('', '## Reminders', '')
  if (d.reminders.length === 0) lines.push('No reminders due.')
  for (const r of d.reminders) lines.push(line.reminder(r))
  lines.push('', '## Tasks due', '')
  if (d.tasks_due.length === 0) lines.push('No task due.')
  for (const task of d.tasks_due) lines.push(line.task(task))
  section(lines, line, 'Notes changed', d.notes_changed, 'No note changed.')
  section(lines, line, 'Contacts changed', d.contacts_changed, 'No contact changed.')
  if (d.truncated) lines.push('', '_Some sections were cut short._')
  return `${lines.join('\n')}\n`
}

function section(lines: string[], line: EntryLines, title: string, changes: DigestChange[], none: string) {
  lines.push('', `## ${title}`, '')
  if (changes.length === 0) lines.push(none)
  for (const c of changes) lines.push(line.change(c))
}

function minutes(n: number): string {
  if (n % 1440 === 0) return `${n / 1440} day${n === 1440 ? '' : 's'}`
  if (n % 60 === 0) return `${n / 60} hour${n === 60 ? '' : 's'}`
  return `${n} minute${n === 1 ? '' : 's'}`
}

/** Markdown's inline markers and line breaks in a user's text, neutralised (one pass). */
function escape(s: string): string {
  return s.replace(/[\\`*_[\]#<>|]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ')
}
