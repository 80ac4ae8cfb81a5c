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

export function sum(values: Iterable<Big>): Big {
  let total = ZERO
  for (const value of values) total = total.plus(value)
  return total
}

/** A decimal as the string the database stores (numeric accepts it exactly). */
export function toDbNumeric(value: Big | number, places = QUANTITY_STORED_DECIMALS): string {
  return new Big(value).round(places).toFixed(places)
}

/** Decimal notation, with or without a point, as PostgreSQL writes a numeric (`-12.5000`). */
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/

/** Digits after the point of a PLAIN_DECIMAL, trailing zeros left out. */
function significantDecimals(value: string): number {
  const point = value.indexOf('.')
  if (point < 0) return 0
  let end = value.length
  while (value.charCodeAt(end - 1) === 48) end--
  return Math.max(0, end - point - 1)
}

/** A database numeric as the JSON number the API answers with, rounded to `places`. */
export function toApiNumber(value: string | number | Big, places: number): number {
  // A database numeric with no more decimals than shown (most are): its nearest double, as below, without
  // building a decimal (this runs for every number of every item answered). `|| 0`: a negative zero is
  // answered 0, as big.js writes it.
  if (typeof value === 'string' && PLAIN_DECIMAL.test(value) && significantDecimals(value) <= places) return Number(value) || 0
  const exact = value instanceof Big ? value : new Big(value)
  // Already within `places` (most database numerics are): rounding would change nothing.
  if (exact.c.length - exact.e - 1 <= places) return Number(exact.toString())
  return Number(exact.round(places).toFixed(places))
}

export const quantityOut = (value: string | number | Big) => toApiNumber(value, QUANTITY_STORED_DECIMALS)
export const moneyOut = (value: string | number | Big) => toApiNumber(value, MONEY_DECIMALS)
export const unitCostOut = (value: string | number | Big) => toApiNumber(value, UNIT_COST_DECIMALS)
