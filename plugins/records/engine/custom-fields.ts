/**
 * The custom-fields merge rule (api.md, shared by notes, contacts and events):
 * keys absent from the change are kept, new keys are added, keys whose value
 * is null are removed. Shallow: a nested object replaces the old value whole.
 */
export type CustomFields = Record<string, unknown>

export function mergeCustomFields(current: CustomFields | null | undefined, change: CustomFields): CustomFields {
  const out: CustomFields = { ...(current ?? {}) }
  for (const [key, value] of Object.entries(change)) {
    if (value === null) delete out[key]
    // defineProperty: a key named "__proto__" (from an imported file) stays a plain key.
    else Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  }
  return out
}
