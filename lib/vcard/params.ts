import { type ContentLine, paramValues, unescapeText } from '../content-line/lines.js'

/**
 * The vCard conventions above the line grammar that every reader and writer of cards meets:
 * vCard 2.1's quoted-printable values, Apple's grouped labels, and the two ways versions mark
 * the preferred email or number (3.0 TYPE=pref, 4.0 PREF=1).
 */
export type VCardVersion = '3.0' | '4.0'

/** Decodes a vCard 2.1 ENCODING=QUOTED-PRINTABLE value (CHARSET defaults to UTF-8) into plain text. */
export function decodeQuotedPrintable(cl: ContentLine): ContentLine {
  if (cl.params.get('ENCODING')?.[0]?.toUpperCase() !== 'QUOTED-PRINTABLE') return cl
  const bytes: number[] = []
  for (let i = 0; i < cl.value.length; i++) {
    const hex = cl.value[i] === '=' ? /^[0-9A-Fa-f]{2}/.exec(cl.value.slice(i + 1, i + 3)) : null
    if (hex) {
      bytes.push(Number.parseInt(hex[0], 16))
      i += 2
    } else {
      bytes.push(...Buffer.from(cl.value[i]))
    }
  }
  const charset = cl.params.get('CHARSET')?.[0]?.toLowerCase() ?? 'utf-8'
  let value: string
  try {
    value = new TextDecoder(charset).decode(Buffer.from(bytes))
  } catch {
    throw new Error(`line ${cl.line}: unknown CHARSET ${charset}`)
  }
  return { ...cl, value: value.replace(/\r\n?/g, '\n') }
}
/** Apple groups a property with `itemN.X-ABLabel:_$!<Work>!$_` or a custom label: group name → label. */
export function groupLabels(properties: ContentLine[]): Map<string, string> {
  const labels = new Map<string, string>()
  for (const cl of properties) {
    if (cl.name === 'X-ABLABEL' && cl.group)
      labels.set(
        cl.group,
        unescapeText(cl.value)
          .replace(/^_\$!<(.*)>!\$_$/, '$1')
          .trim(),
      )
  }
  return labels
}

/** Lower-cased TYPE values (TYPE=WORK,pref → ['work', 'pref']). */
export function typeValues(cl: ContentLine): string[] {
  return paramValues(cl, 'TYPE')
}

/** Preference: TYPE=pref (3.0) counts as PREF=1; PREF=1 is the most preferred (4.0); none is Infinity. */
export function prefRank(cl: ContentLine): number {
  const pref = Number(cl.params.get('PREF')?.[0])
  if (Number.isInteger(pref) && pref >= 1) return pref
  return typeValues(cl).includes('pref') ? 1 : Number.POSITIVE_INFINITY
}

/** A TYPE list plus the version's way of marking the preferred entry. */
export function typedParams(type: string[], primary: boolean, version: VCardVersion): Array<[string, string | string[]]> {
  if (!primary) return [['TYPE', type]]
  return version === '4.0'
    ? [
        ['TYPE', type],
        ['PREF', '1'],
      ]
    : [['TYPE', [...type, 'pref']]]
}
