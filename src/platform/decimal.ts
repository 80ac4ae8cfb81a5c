import Big from 'big.js'

/**
 * Money and quantity arithmetic, in one place. Values are exact decimals (big.js); the database stores
 * them as `numeric` and hands them over as strings. Nothing here rounds through a binary float.
 */
export type Decimal = Big

/** Quantities are accepted with up to 3 decimals and stored with 4 (pours deplete fractions). */
export const QUANTITY_INPUT_DECIMALS = 3
export const QUANTITY_STORED_DECIMALS = 4
export const MONEY_DECIMALS = 2
export const UNIT_COST_DECIMALS = 4

Big.RM = Big.roundHalfUp

export function decimal(value: number | string | Big): Big {
  return new Big(value)
}

export const ZERO = new Big(0)

/** How many digits stand after the decimal point of a JSON number as written. */
export function decimalPlaces(value: number): number {
  const digits = new Big(value)
  return Math.max(0, digits.c.length - digits.e - 1)
}

/** Divides truncating toward zero (its DP is set per division). */
const Truncating = Big()
Truncating.RM = Big.roundDown

/**
 * dividend / divisor for a figure shown rounded to `places`: divided to one digit past them, truncated
 * toward zero, so rounding it half-up to `places` gives exactly the true quotient's rounding (a value at or
 * past a rounding boundary stays at or past it), at a fraction of a 20-digit division's cost.
 */
export function quotientShownAt(places: number, dividend: Big, divisor: Big): Big {
  Truncating.DP = places + 1
  return new Big(new Truncating(dividend).div(divisor))
}

/*
 * Exact decimals as scaled integers: a bigint of units of 10^-places, the places the caller's to keep
 * (a quantity scaled to 8 places times a cost scaled to 4 is scaled to 12). For hot paths over thousands
 * of database decimals, such as a variance report's windows: a bigint is one small object where a big.js
 * value is an object and an array of digits, made anew by every operation.
 */

/** A plain decimal string (as the database writes a numeric) with at most `places` significant decimals, scaled. */
export function toScaled(value: string, places: number): bigint {
  const small = smallScaled(value, places)
  return small === undefined ? bigScaled(value, places) : BigInt(small)
}

/** 10^0 … 10^22, each exact in a double. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, power) => 10 ** power)

/**
 * toScaled's value as an exact double, read digit by digit without a string or bigint made on the way
 * (the variance report and the forecast endpoint scale tens of thousands of decimals an answer): for a
 * plain decimal of at most 15 digits and `places` decimals whose scaled value is below 2^53; undefined for
 * anything else, which bigScaled reads (and rejects where it is no decimal).
 */
function smallScaled(value: string, places: number): number | undefined {
  const length = value.length
  const negative = value.charCodeAt(0) === 45 // '-'
  let units = 0
  let digits = 0
  let decimals = -1 // no point yet
  for (let index = negative ? 1 : 0; index < length; index++) {
    const code = value.charCodeAt(index)
    if (code === 46 && decimals < 0) {
      decimals = 0 // '.'
    } else if (code >= 48 && code <= 57) {
      units = units * 10 + (code - 48)
      digits++
      if (decimals >= 0) decimals++
    } else return undefined
  }
  const shift = places - Math.max(decimals, 0)
  if (digits === 0 || digits > 15 || shift < 0 || shift >= POWERS_OF_TEN.length) return undefined
  const scaled = units * (POWERS_OF_TEN[shift] as number)
  // Below 2^53 the product is exact; at or above it, rounded or not, it is left to bigScaled.
  if (scaled >= 2 ** 53) return undefined
  return negative ? -scaled : scaled
}

function bigScaled(value: string, places: number): bigint {
  const point = value.indexOf('.')
  if (point < 0) return BigInt(value) * bigPowerOfTen(places)
  let end = value.length
  while (end > point + places + 1 && value.charCodeAt(end - 1) === 48) end--
  if (end - point - 1 > places) throw new Error(`${value} has more than ${places} decimals`)
  return BigInt(value.slice(0, point) + value.slice(point + 1, end).padEnd(places, '0'))
}

/** The exact decimal string of a scaled integer. */
function scaledText(units: bigint, places: number): string {
  if (places === 0) return units.toString()
  const digits = (units < 0n ? -units : units).toString().padStart(places + 1, '0')
  return `${units < 0n ? '-' : ''}${digits.slice(0, -places)}.${digits.slice(-places)}`
}

const LARGEST_EXACT_DOUBLE = BigInt(Number.MAX_SAFE_INTEGER)

/** 10n^0 … 10n^24: made once, not by every rounding (a report rounds tens of thousands of figures). */
const BIG_POWERS_OF_TEN = Array.from({ length: 25 }, (_, power) => 10n ** BigInt(power))

function bigPowerOfTen(power: number): bigint {
  return BIG_POWERS_OF_TEN[power] ?? 10n ** BigInt(power)
}

/**
 * A scaled integer rounded half-up (away from zero) to `shown` places, as the number the API answers: the
 * nearest double of that decimal (toApiNumber's answer for the same decimal).
 */
export function scaledOut(units: bigint, places: number, shown: number): number {
  let rounded = units
  if (places > shown) {
    const divisor = bigPowerOfTen(places - shown)
    rounded = units / divisor
    const remainder = units % divisor
    if (2n * (remainder < 0n ? -remainder : remainder) >= divisor) rounded += units < 0n ? -1n : 1n
  }
  const roundedPlaces = Math.min(places, shown)
  // An integer a double holds exactly, over a power of ten, divides to the double nearest the decimal.
  if (rounded <= LARGEST_EXACT_DOUBLE && rounded >= -LARGEST_EXACT_DOUBLE) return Number(rounded) / 10 ** roundedPlaces
  return Number(scaledText(rounded, roundedPlaces))
}

export function sumScaled(values: Iterable<bigint>): bigint {
  let total = 0n
  for (const value of values) total += value
  return total
}

/** A scaled integer as a big.js decimal, for what scaled integers do not do (division). */
export function scaledDecimal(units: bigint, places: number): Big {
  return new Big(scaledText(units, places))
}

/** Past this, a quotient scaled to its shown places is rounded exactly rather than in doubles. */
const LARGEST_FAST_SCALED = 1e12
/** Far above the few units in the last place that a double quotient of two integers' nearest doubles can be off by. */
const FAST_RELATIVE_ERROR = 1e-13

/**
 * part / whole × 100 of two values scaled alike, rounded half-up (away from zero) to `places`, as the
 * number the API answers (the nearest double of that decimal): what `toApiNumber(quotientShownAt(places,
 * part × 100, whole), places)` answers, at a fraction of its cost. It is computed in doubles, which is
 * exact whenever the doubles' error cannot reach a rounding boundary; a quotient that close to one (or too
 * large) is rounded exactly. `whole` must not be zero.
 */
export function percentShownAt(places: number, part: bigint, whole: bigint): number {
  const scale = 10 ** places
  const quotient = Number(part) / Number(whole)
  const halfUp = Math.abs(quotient) * 100 * scale + 0.5
  const rounded = Math.floor(halfUp)
  const margin = halfUp * FAST_RELATIVE_ERROR
  if (!(halfUp < LARGEST_FAST_SCALED) || halfUp - rounded <= margin || rounded + 1 - halfUp <= margin) {
    return toApiNumber(quotientShownAt(places, new Big(part.toString()).times(100), new Big(whole.toString())), places)
  }
  // An integer over a power of ten divides to the double nearest the decimal, as Number() of it reads.
  return rounded === 0 ? 0 : (Math.sign(quotient) * rounded) / scale
}

export function sum(values: Iterable<Big>): Big {
  let total = ZERO
  for (const value of values) total = total.plus(value)
  return total
}

/** A decimal as the string the database stores (numeric accepts it exactly). */
export function toDbNumeric(value: Big | number, places = QUANTITY_STORED_DECIMALS): string {
  return new Big(value).round(places).toFixed(places)
}

/**
 * The digits after the point of `value` (trailing zeros left out) when it is in decimal notation, with or
 * without a point, as PostgreSQL writes a numeric (`-12.5000`, i.e. /^-?\d+(\.\d+)?$/); -1 for any other
 * text. One pass over the characters: this runs for every number of every item answered.
 */
function plainDecimals(value: string): number {
  const length = value.length
  let index = value.charCodeAt(0) === 45 ? 1 : 0 // '-'
  const integerStart = index
  while (index < length && isDigit(value.charCodeAt(index))) index++
  if (index === integerStart) return -1
  if (index === length) return 0
  if (value.charCodeAt(index) !== 46) return -1 // '.'
  const fractionStart = ++index
  let significantEnd = fractionStart
  for (; index < length; index++) {
    const code = value.charCodeAt(index)
    if (!isDigit(code)) return -1
    if (code !== 48) significantEnd = index + 1
  }
  return index === fractionStart ? -1 : significantEnd - fractionStart
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

/** A database numeric as the JSON number the API answers with, rounded to `places`. */
export function toApiNumber(value: string | number | Big, places: number): number {
  // A database numeric (most values answered): with no more decimals than shown, its nearest double, as
  // below, without building a decimal (`|| 0`: a negative zero is answered 0, as big.js writes it); with
  // more, rounded as a scaled integer, which answers what big.js would at a fraction of its cost.
  if (typeof value === 'string') {
    const decimals = plainDecimals(value)
    if (decimals >= 0) return decimals <= places ? Number(value) || 0 : scaledOut(toScaled(value, decimals), decimals, places)
  }
  const exact = value instanceof Big ? value : new Big(value)
  // Already within `places` (most database numerics are): rounding would change nothing.
  if (exact.c.length - exact.e - 1 <= places) return Number(exact.toString())
  return Number(exact.round(places).toFixed(places))
}

export const quantityOut = (value: string | number | Big) => toApiNumber(value, QUANTITY_STORED_DECIMALS)
export const moneyOut = (value: string | number | Big) => toApiNumber(value, MONEY_DECIMALS)
export const unitCostOut = (value: string | number | Big) => toApiNumber(value, UNIT_COST_DECIMALS)
