import { isIP } from 'node:net'
import { HttpError } from '../../../core/plugin-api.js'

/**
 * The public IP as a majority of plain-text echo services see it (api.ipify.org,
 * ifconfig.me/ip, icanhazip.com answer the bare address). A source that fails
 * or answers something that is not an IP counts as a vote for nothing; the
 * winner needs more than half of all the sources asked.
 */
export interface IpVote {
  source: string
  ip: string | null
}

async function ask(source: string, timeoutMs: number): Promise<string | null> {
  try {
    const res = await fetch(source, { headers: { accept: 'text/plain' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' })
    if (!res.ok) return null
    const text = (await res.text()).trim()
    return isIP(text) ? text.toLowerCase() : null
  } catch {
    return null
  }
}

export async function majorityIp(sources: string[], timeoutMs: number): Promise<{ ip: string; votes: IpVote[] }> {
  const votes = await Promise.all(sources.map(async (source) => ({ source, ip: await ask(source, timeoutMs) })))
  const tally = new Map<string, number>()
  for (const v of votes) if (v.ip) tally.set(v.ip, (tally.get(v.ip) ?? 0) + 1)
  const [best, count] = [...tally].sort((a, b) => b[1] - a[1])[0] ?? [null, 0]
  if (!best || count * 2 <= sources.length) {
    throw new HttpError('SERVICE_UNAVAILABLE', `No majority among ${sources.length} public-IP sources`, {
      votes: votes.map((v) => ({ source: v.source, ip: v.ip })),
    })
  }
  return { ip: best, votes }
}
