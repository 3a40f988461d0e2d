/**
 * Progress of a long step on stderr: a bar redrawn in place on a terminal,
 * plain lines at each quarter otherwise (logs, pipes, CI).
 */
export interface Progress {
  update(done: number, total: number): void
  done(message?: string): void
}

const human = (n: number) =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`

export function createProgress(label: string, opts: { stream?: NodeJS.WriteStream; unit?: 'bytes' | 'pages' } = {}): Progress {
  const stream = opts.stream ?? process.stderr
  const tty = Boolean(stream.isTTY)
  const fmt = (n: number) => (opts.unit === 'pages' ? `${n} pages` : human(n))
  let lastQuarter = -1
  let lastDraw = 0
  let finished = false
  return {
    update(done, total) {
      if (finished) return
      const ratio = total > 0 ? Math.min(1, done / total) : 1
      if (tty) {
        const now = Date.now()
        if (now - lastDraw < 80 && ratio < 1) return
        lastDraw = now
        const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - label.length - 30))
        const full = Math.round(ratio * width)
        stream.write(
          `\r${label} [${'#'.repeat(full)}${'.'.repeat(width - full)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${fmt(done)}\x1b[K`,
        )
        return
      }
      const quarter = Math.floor(ratio * 4)
      if (quarter === lastQuarter) return
      lastQuarter = quarter
      stream.write(`${label}: ${quarter * 25}% (${fmt(done)} of ${fmt(total)})\n`)
    },
    done(message) {
      if (finished) return
      finished = true
      if (tty) stream.write(`\r${label}: ${message ?? 'done'}\x1b[K\n`)
      else stream.write(`${label}: ${message ?? 'done'}\n`)
    },
  }
}
