/**
 * A byte budget for building one answer: work that produces output asks the budget before
 * adding a piece and stops when the piece would not fit, so an answer never grows past its
 * limit however the request was shaped.
 */
export class ByteBudget {
  #spent = 0

  constructor(readonly limit: number) {}

  get spent(): number {
    return this.#spent
  }

  get remaining(): number {
    return this.limit - this.#spent
  }

  /** Whether `bytes` more would still fit, without taking them. */
  fits(bytes: number): boolean {
    return this.#spent + bytes <= this.limit
  }

  /** Takes `bytes` when they fit and says so; takes nothing when they do not. */
  take(bytes: number): boolean {
    if (!this.fits(bytes)) return false
    this.#spent += bytes
    return true
  }
}
