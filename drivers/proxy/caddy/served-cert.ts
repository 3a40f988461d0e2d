import { connect } from 'node:tls'

/**
 * The certificate Caddy serves for `domain` on its HTTPS port, read from a TLS handshake with that
 * name as SNI: what clients get, without reading Caddy's storage (Caddy runs as its own user). Null
 * when Caddy holds none for the name yet (it ends the handshake) or serves one for another name.
 * Nothing is verified here: the certificate is only read, never trusted.
 */
export function servedCertificate(port: number, domain: string, timeoutMs = 3000): Promise<string | null> {
  // A wildcard is asked for through one name it covers.
  const name = domain.startsWith('*.') ? `hearth-probe.${domain.slice(2)}` : domain
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername: name, rejectUnauthorized: false, timeout: timeoutMs })
    const done = (pem: string | null) => {
      socket.destroy()
      resolve(pem)
    }
    socket.once('secureConnect', () => {
      const cert = socket.getPeerX509Certificate()
      done(cert && cert.checkHost(name) ? cert.toString() : null)
    })
    socket.once('timeout', () => done(null))
    socket.once('error', () => done(null))
  })
}
