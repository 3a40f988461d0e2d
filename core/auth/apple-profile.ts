import { createHash, randomUUID } from 'node:crypto'
import { plist } from '../../lib/plist.js'

/** The media type iOS and macOS install a configuration profile from. */
export const APPLE_PROFILE_TYPE = 'application/x-apple-aspen-config'

export interface DavAccount {
  /** What the profile and its accounts are called on the device. */
  name: string
  host: string
  port: number
  tls: boolean
  email: string
  password: string
  /** The URL the device starts its discovery at (the DAV root: it answers current-user-principal). */
  path: string
  /** A root certificate (DER) the device must trust to reach `host` over HTTPS: the proxy's own CA. */
  root?: Buffer | null
}

/** Where the core finds that root: the service a proxy plugin provides. */
export interface DeviceRootSource {
  localRootFor(host: string): Promise<Buffer | null>
}

/**
 * Apple's `com.apple.security.root` payload (Device Management, CertificateRoot): the certificate's
 * DER bytes as PayloadContent. iOS installs it with the profile; the member then turns full trust on
 * under Settings > General > About > Certificate Trust Settings (docs/api.md).
 */
const rootPayload = (id: string, der: Buffer, host: string) => ({
  PayloadType: 'com.apple.security.root',
  PayloadVersion: 1,
  PayloadIdentifier: `${id}.root`,
  PayloadUUID: randomUUID().toUpperCase(),
  PayloadDisplayName: `Hearth local certificate authority (${host})`,
  PayloadDescription: `Lets the device trust the HTTPS certificate of ${host}, issued by this Hearth's own certificate authority`,
  PayloadCertificateFileName: 'hearth-local-ca.cer',
  PayloadContent: der,
})

/**
 * A configuration profile with a CalDAV and a CardDAV account (Apple's Device Management payloads
 * `com.apple.caldav.account` and `com.apple.carddav.account` inside a top-level `Configuration`;
 * docs/api.md cites the pages). The identifier derives from the host, the user and the device
 * name, so installing a new profile for the same device replaces the old one instead of adding a
 * second account; each UUID is new, as the payload documentation asks. Not signed: the device says "unverified" and installs it.
 */
export function appleProfile(account: DavAccount): string {
  const id = `local.hearth.${account.host.replace(/[^A-Za-z0-9.-]/g, '-')}.${createHash('sha256').update(`${account.email}\n${account.name}`).digest('hex').slice(0, 12)}`
  const principal = `${account.tls ? 'https' : 'http'}://${account.host}:${account.port}${account.path}`
  const payload = (kind: 'CalDAV' | 'CardDAV', what: string) => ({
    PayloadType: `com.apple.${kind.toLowerCase()}.account`,
    PayloadVersion: 1,
    PayloadIdentifier: `${id}.${kind.toLowerCase()}`,
    PayloadUUID: randomUUID().toUpperCase(),
    PayloadDisplayName: `${what} (${account.name})`,
    PayloadDescription: `Hearth ${what.toLowerCase()} for ${account.email}`,
    [`${kind}AccountDescription`]: `Hearth ${what.toLowerCase()}`,
    [`${kind}HostName`]: account.host,
    [`${kind}Port`]: account.port,
    [`${kind}UseSSL`]: account.tls,
    [`${kind}PrincipalURL`]: principal,
    [`${kind}Username`]: account.email,
    [`${kind}Password`]: account.password,
  })
  return plist({
    PayloadType: 'Configuration',
    PayloadVersion: 1,
    PayloadIdentifier: id,
    PayloadUUID: randomUUID().toUpperCase(),
    PayloadDisplayName: `Hearth: ${account.name}`,
    PayloadDescription: `Calendars and contacts of ${account.email} on ${account.host}`,
    PayloadOrganization: 'Hearth',
    PayloadRemovalDisallowed: false,
    // The root first: the device trusts it before the accounts first connect.
    PayloadContent: [
      ...(account.root ? [rootPayload(id, account.root, account.host)] : []),
      payload('CalDAV', 'Calendars'),
      payload('CardDAV', 'Contacts'),
    ],
  })
}
