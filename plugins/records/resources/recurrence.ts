import { type Static, Type } from '@sinclair/typebox'
import { StringEnum } from '../../../core/plugin-api.js'
import { BYDAY, type Recurrence as Rule } from '../../../lib/ical/recurrence.js'
import { invalid } from '../engine/validate.js'

/**
 * The recurrence object of an event as the API takes it (docs/api.md): RRULE's parts lower-cased,
 * bounded so that one series cannot ask for unbounded work. Expanding it is lib/ical/recurrence.ts.
 */
const DATE_OR_DATETIME = '^\\d{4}-\\d{2}-\\d{2}([Tt]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?([Zz]|[+-]\\d{2}:\\d{2})?)?$'

export const Recurrence = Type.Object(
  {
    freq: StringEnum(['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const),
    interval: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    byday: Type.Optional(Type.Array(Type.String({ pattern: BYDAY.source }), { minItems: 1, maxItems: 35 })),
    bymonthday: Type.Optional(Type.Array(Type.Integer({ minimum: -31, maximum: 31, not: { const: 0 } }), { minItems: 1, maxItems: 31 })),
    bymonth: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 12 }), { minItems: 1, maxItems: 12 })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    until: Type.Optional(
      Type.String({ pattern: DATE_OR_DATETIME, description: "YYYY-MM-DD (inclusive, the event's time zone) or a datetime" }),
    ),
    exdates: Type.Optional(
      Type.Array(Type.String({ pattern: DATE_OR_DATETIME }), {
        maxItems: 1000,
        description: "Excluded occurrence starts (EXDATE): datetimes, or YYYY-MM-DD for every occurrence of that day in the event's zone",
      }),
    ),
  },
  { additionalProperties: false },
)
export type Recurrence = Static<typeof Recurrence>

/** The most days each month can have (February in a leap year). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/**
 * Rules the schema cannot say: count and until exclude each other; ordinal BYDAY needs MONTHLY or
 * YEARLY; BYMONTHDAY is not for WEEKLY (RFC 5545 3.3.10); and a rule must be able to occur at all
 * (BYMONTH=2 with BYMONTHDAY=30 never does: its expansion would walk its whole bound to find nothing).
 */
export function checkRecurrence(rule: Rule | null | undefined): void {
  if (!rule) return
  if (rule.count !== undefined && rule.until !== undefined) {
    throw invalid('recurrence.until', 'exclusive', 'recurrence takes count or until, not both (RFC 5545)')
  }
  if ((rule.freq === 'DAILY' || rule.freq === 'WEEKLY') && rule.byday?.some((c) => /\d/.test(c))) {
    throw invalid('recurrence.byday', 'ordinal', 'ordinal byday (e.g. 1MO) applies to MONTHLY and YEARLY only')
  }
  if (rule.freq === 'WEEKLY' && rule.bymonthday) {
    throw invalid('recurrence.bymonthday', 'weekly', 'bymonthday does not apply to WEEKLY (RFC 5545)')
  }
  if (rule.bymonthday && rule.bymonth) {
    const months = rule.bymonth
    const occurs = rule.bymonthday.some((day) => months.some((month) => Math.abs(day) <= (MONTH_DAYS[month - 1] as number)))
    if (!occurs) throw invalid('recurrence.bymonthday', 'never', 'no month of bymonth has any day of bymonthday: the rule never occurs')
  }
}
