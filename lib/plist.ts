/**
 * Apple's XML property list (the format of configuration profiles), written from plain values:
 * strings, integers, booleans, Buffers (as <data>), arrays and objects (keys in their given order).
 * Only the writer: Hearth never reads one.
 */
export type PlistValue = string | number | boolean | Buffer | PlistValue[] | { [key: string]: PlistValue }

const escape = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    // Characters XML 1.0 cannot carry at all: dropped rather than producing a document no reader opens.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')

function write(value: PlistValue, indent: string, out: string[]): void {
  const next = `${indent}\t`
  if (typeof value === 'string') out.push(`${indent}<string>${escape(value)}</string>`)
  else if (typeof value === 'boolean') out.push(`${indent}<${value}/>`)
  else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError(`plist integers only: ${value}`)
    out.push(`${indent}<integer>${value}</integer>`)
  } else if (Buffer.isBuffer(value)) out.push(`${indent}<data>${value.toString('base64')}</data>`)
  else if (Array.isArray(value)) {
    out.push(`${indent}<array>`)
    for (const item of value) write(item, next, out)
    out.push(`${indent}</array>`)
  } else {
    out.push(`${indent}<dict>`)
    for (const [key, item] of Object.entries(value)) {
      out.push(`${next}<key>${escape(key)}</key>`)
      write(item, next, out)
    }
    out.push(`${indent}</dict>`)
  }
}

/** The whole document, with the XML declaration and Apple's DOCTYPE. */
export function plist(value: PlistValue): string {
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
  ]
  write(value, '', out)
  out.push('</plist>', '')
  return out.join('\n')
}
