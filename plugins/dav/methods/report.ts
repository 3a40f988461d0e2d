import { HttpError } from '../../../core/plugin-api.js'
import { is, multistatusStream, NS } from '../../../lib/webdav-xml/index.js'
import type { RecordsPluginService } from '../../records/public.js'
import { freeBusyReport } from '../free-busy-report.js'
import { report as answer } from '../reports.js'
import { type DavRequest, sendMultistatus, sendXml, xmlBody } from '../request.js'

/**
 * REPORT (RFC 3253 3.6) on a calendar or the address book: the queries, multigets and sync-collection
 * of reports.ts, and a calendar's free-busy-query (free-busy-report.ts), answered as text/calendar.
 */
export function report(r: DavRequest) {
  if (r.target.type !== 'collection' || !r.exists(r.target.collection))
    throw new HttpError('NOT_FOUND', 'REPORT applies to a calendar or the address book')
  const body = xmlBody(r.xml, '', '', false)
  if (is(body, NS.caldav, 'free-busy-query') && r.target.collection.kind === 'event' && !r.target.collection.invitations) {
    const { freeBusy } = r.api.services.get<RecordsPluginService>('records')
    // A shared calendar is its owner's: its busy times are theirs, never the caller's calendar of that name.
    const owner = r.target.collection.owner ?? r.userId
    const text = freeBusyReport(freeBusy, owner, r.target.collection.name, body, r.api.now())
    return r.reply.code(200).header('content-type', 'text/calendar; charset=utf-8').send(text)
  }
  const result = answer(r.props, r.objects, r.target.collection, body, r.api.answerBudget())
  if ('status' in result) return sendXml(r.reply, result.status, result.body)
  return sendMultistatus(r.reply, multistatusStream(result.multistatus))
}
