import { HttpError } from '../../core/plugin-api.js'
import { type AddressBook, REQUESTS_PER_DAY, TOKEN_TTL_MS } from './addresses.js'
import { DeliveryError, sendMail, type SmtpSettings } from './deliver.js'

/** The route that uses a confirmation link's token (GET, so the link works from any mail reader). */
export const CONFIRM_PATH = '/api/v1/digest/confirm'

/**
 * Makes `target` an address the user's digest may go to: at once when it is the account's own
 * address or one confirmed before; otherwise a link with a single-use token is emailed to it and the
 * answer is false (deliveries wait until someone opens the link). The link names the origin the
 * request came in on: where this user reaches the daemon.
 */
export async function claimAddress(
  book: AddressBook,
  smtp: SmtpSettings,
  who: { userId: string; email: string | null; origin: string },
  target: string,
): Promise<boolean> {
  if (who.email && who.email.trim().toLowerCase() === target.trim().toLowerCase()) {
    book.own(who.userId, target)
    return true
  }
  if (book.isConfirmed(who.userId, target)) return true
  const token = book.request(who.userId, target)
  if (!token)
    throw new HttpError(
      'RATE_LIMITED',
      `At most ${REQUESTS_PER_DAY} confirmation links a day: open one already sent, or try again tomorrow`,
      { field: 'target', constraint: 'confirmations' },
    )
  const link = `${who.origin}${CONFIRM_PATH}?token=${token}`
  try {
    await sendMail(smtp, {
      to: target,
      subject: 'Confirm this address for a Hearth digest',
      text: [
        `A Hearth user${who.email ? ` (${who.email})` : ''} asked for their digest to be emailed to this address.`,
        '',
        `To agree, open this link within ${TOKEN_TTL_MS / 3_600_000} hours:`,
        '',
        link,
        '',
        'If you did not expect this, ignore this message: nothing will be sent to you.',
      ].join('\n'),
    })
  } catch (err) {
    throw new HttpError('SERVICE_UNAVAILABLE', err instanceof DeliveryError ? err.message : 'the confirmation email could not be sent')
  }
  return false
}
