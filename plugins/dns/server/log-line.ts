import { firstCodePoints } from '../../../lib/text-prefix.js'
import type { DnsLogger } from './types.js'

/**
 * What the DNS server writes to the log: names, types and reasons, never a record's content (a
 * TXT record is a user's data, up to 65,000 bytes of it), each line bounded, so a zone of odd
 * records cannot fill the journal or carry someone's data into it.
 */
export const MAX_LOG_LINE = 512
/** A DNS name is at most 253 characters: a stored name longer than that is cut where it is shown. */
const MAX_NAME = 253

/** A name (or a type) as a log line shows it: its first 253 code points, control characters as '?'. */
export function shownName(name: string): string {
  const head = firstCodePoints(name, MAX_NAME)
  return `${head.replace(/[\u0000-\u001f\u007f]/g, '?')}${head.length < name.length ? '…' : ''}`
}

/** The logger with every line cut to MAX_LOG_LINE code points. */
export function boundedLog(log: DnsLogger): DnsLogger {
  const cut = (line: string) => (line.length > MAX_LOG_LINE ? `${firstCodePoints(line, MAX_LOG_LINE)}…` : line)
  return {
    info: (m) => log.info(cut(m)),
    warn: (m) => log.warn(cut(m)),
    error: (m) => log.error(cut(m)),
    debug: (m) => log.debug(cut(m)),
  }
}
