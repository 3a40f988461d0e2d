/**
 * Hides the password of every `scheme://user:password@host` in a text (a repository URL, an error
 * message quoting one): `scheme://user:***@host`. A user name alone is no secret and stays. One
 * pass with a bounded pattern (no nested quantifiers): linear in the text's length.
 */
const USERINFO = /([a-z][a-z0-9+.-]{0,31}:\/\/[^\s/:@]{0,256}):[^\s/@]{1,1024}@/gi

export const MASK = '***'

export function maskUrlCredentials(text: string): string {
  return text.replace(USERINFO, `$1:${MASK}@`)
}

/** Removes each given secret wherever it appears in `text` (a tool's message that quoted one). */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = maskUrlCredentials(text)
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join(MASK)
  return out
}
