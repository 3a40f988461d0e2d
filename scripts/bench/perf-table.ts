/** The perf bench's one table: each figure beside its baseline from the same run, the ratio, the aim, met or not. */
export interface Row {
  figure: string
  value: number | string
  baseline?: number | string
  /** value / baseline, as the aim reads it. */
  ratio?: number
  aim?: string
  /** Whether the aim is met; undefined for an informative row. */
  met?: boolean
}

const cell = (v: number | string | undefined) =>
  v === undefined ? '–' : typeof v === 'number' ? (Number.isInteger(v) ? v.toLocaleString('en-US') : String(v)) : v

/** The rows as a Markdown table (what docs/performance.md opens with). */
export function markdownTable(rows: Row[]): string {
  const lines = ['| figure | value | baseline | ratio | aim | met |', '|---|---|---|---|---|---|']
  for (const r of rows) {
    const met = r.met === undefined ? '–' : r.met ? 'yes' : '**no**'
    lines.push(`| ${r.figure} | ${cell(r.value)} | ${cell(r.baseline)} | ${cell(r.ratio)} | ${r.aim ?? '–'} | ${met} |`)
  }
  return lines.join('\n')
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits
