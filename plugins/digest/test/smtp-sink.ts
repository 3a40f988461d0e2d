import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

/** A local SMTP server that keeps every message it is given: where the digest tests' emails go. */
export async function smtpSink(t: { teardown(fn: () => unknown): void }) {
  const messages: Array<{ to: string[]; raw: string }> = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') })
        callback()
      })
    },
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, messages }
}
