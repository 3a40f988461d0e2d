/**
 * `mdadm --detail --export /dev/mdX`: KEY=VALUE lines. mdadm (Detail.c)
 * prints MD_LEVEL, MD_DEVICES, MD_METADATA, MD_UUID, MD_DEVNAME, MD_NAME and
 * per member MD_DEVICE_<sysname>_ROLE (the slot number, or "spare" for a
 * device without a slot, faulty ones included) and MD_DEVICE_<sysname>_DEV.
 * It carries no state: degraded and rebuild state come from /proc/mdstat.
 */
export interface MdDetail {
  level: string | null
  devices: number | null
  uuid: string | null
  devname: string | null
  name: string | null
  members: Array<{ device: string; role: number | 'spare' }>
}

export function parseDetailExport(text: string): MdDetail {
  const kv = new Map<string, string>()
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=')
    if (eq > 0) kv.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim())
  }
  const members: MdDetail['members'] = []
  for (const [key, value] of kv) {
    const m = /^MD_DEVICE_(.+)_DEV$/.exec(key)
    if (!m) continue
    const role = kv.get(`MD_DEVICE_${m[1]}_ROLE`)
    members.push({ device: value, role: role !== undefined && /^\d+$/.test(role) ? Number(role) : 'spare' })
  }
  const devices = kv.get('MD_DEVICES')
  return {
    level: kv.get('MD_LEVEL') ?? null,
    devices: devices && /^\d+$/.test(devices) ? Number(devices) : null,
    uuid: kv.get('MD_UUID') ?? null,
    devname: kv.get('MD_DEVNAME') ?? null,
    name: kv.get('MD_NAME') ?? null,
    members,
  }
}
