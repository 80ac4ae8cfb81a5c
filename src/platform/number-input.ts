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
