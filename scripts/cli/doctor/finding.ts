/** One result of `hearth doctor`: what was checked, how it went, and what to do about it. */
export interface Finding {
  check: string
  status: 'ok' | 'warn' | 'fail'
  message: string
  /** What to do, for every warn and fail. */
  fix?: string
}
