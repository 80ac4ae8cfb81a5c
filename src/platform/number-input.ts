import { invalidParameter } from './errors.js'
import { decimalPlaces } from './decimal.js'

/**
 * The API's numbers past their schema: a money amount, factor or setting is stored with a fixed number
 * of decimals, and a number written with more is refused rather than rounded.
 */

/** Refuses `value` with more than `places` decimals: invalid_parameter naming `field`. */
export function checkDecimalPlaces(field: string, value: number, places: number): void {
  if (decimalPlaces(value) > places) throw invalidParameter(field, value, `${field} takes at most ${places} decimals, got ${value}`)
}

/** How far ahead of this server's clock a client's timestamp may be: its clock may run a little fast. */
const CLOCK_SKEW_MS = 5 * 60_000

/** Whether a moment a client sent lies in the future, beyond the clock skew allowed. */
export function isInTheFuture(at: Date, now = Date.now()): boolean {
  return at.getTime() > now + CLOCK_SKEW_MS
}
