import { HttpError } from '../../../core/plugin-api.js'
import { multistatusStream } from '../../../lib/webdav-xml/index.js'
import { report as answer } from '../reports.js'
import { type DavRequest, sendMultistatus, sendXml, xmlBody } from '../request.js'

/** REPORT (RFC 3253 3.6) on a calendar or the address book: the queries, multigets and sync-collection of reports.ts. */
export function report(r: DavRequest) {
  if (r.target.type !== 'collection' || !r.exists(r.target.collection))
    throw new HttpError('NOT_FOUND', 'REPORT applies to a calendar or the address book')
  const result = answer(r.props, r.objects, r.target.collection, xmlBody(r.xml, '', '', false), r.api.answerBudget())
  if ('status' in result) return sendXml(r.reply, result.status, result.body)
  return sendMultistatus(r.reply, multistatusStream(result.multistatus))
}
