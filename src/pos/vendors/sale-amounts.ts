import type Big from 'big.js'
import { PosAdapterError } from './adapter.js'
import { decimal, MONEY_DECIMALS, quotientShownAt, sum, UNIT_COST_DECIMALS, ZERO } from '../../platform/decimal.js'

/**
 * Money arithmetic that several vendor mappers share: vendors that report a line's extended amount
 * need its unit price, and vendors that report a tip per check need each line's share of it. Vendors
 * that send integers of minor units (Square, Clover) are read as such and stay plain integers until
 * the line is built: exact, and without a decimal object per amount.
 */

/** A vendor's decimal (a JSON number or a decimal string) as a Big; anything else is invalid_response. */
export function readVendorDecimal(vendor: string, value: unknown, field: string): Big {
  if (typeof value === 'number' && Number.isFinite(value)) return decimal(value)
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return decimal(value.trim())
  throw new PosAdapterError('invalid_response', `${vendor} sent ${field} ${JSON.stringify(value)}, not a decimal`)
}

/**
 * A vendor's integer (minor units of money, thousandths of a unit) as a number; anything else, or an
 * integer beyond those a number holds exactly, is invalid_response. `field` names it, built only then.
 */
export function readVendorInteger(vendor: string, value: unknown, field: () => string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value
  throw new PosAdapterError('invalid_response', `${vendor} sent ${field()} ${JSON.stringify(value)}, not an integer`)
}

/** An integer of minor units as barstock's decimal string with `exponent` decimals (750 is "7.50" at 2, "750" at 0, "0.750" at 3). */
export function minorUnitsToString(amount: number, exponent: number): string {
  const sign = amount < 0 ? '-' : ''
  const digits = String(Math.abs(amount)).padStart(exponent + 1, '0')
  return exponent === 0 ? sign + digits : `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
}

/** The per-unit price of a line reported as an extended amount: cents when exact, else 4 decimals. */
export function unitPriceOf(lineAmount: Big, quantity: Big): string {
  const perUnit = lineAmount.div(quantity)
  const inCents = perUnit.round(MONEY_DECIMALS)
  return perUnit.eq(inCents) ? inCents.toFixed(MONEY_DECIMALS) : perUnit.round(UNIT_COST_DECIMALS).toFixed(UNIT_COST_DECIMALS)
}

/**
 * Splits a check's tip over its lines in proportion to their amounts, in cents; the last line takes
 * the rounding remainder so the shares always add up to the tip exactly.
 */
export function splitCheckTip(tip: Big, lineAmounts: readonly Big[]): string[] {
  const total = sum(lineAmounts)
  // A check of free lines can still carry a tip: split it evenly rather than divide by zero.
  const weights = total.gt(ZERO) ? lineAmounts : lineAmounts.map(() => decimal(1))
  const weightTotal = total.gt(ZERO) ? total : decimal(lineAmounts.length)
  let given = ZERO
  return weights.map((weight, index) => {
    const share = index === weights.length - 1 ? tip.minus(given) : quotientShownAt(MONEY_DECIMALS, tip.times(weight), weightTotal).round(MONEY_DECIMALS)
    given = given.plus(share)
    return share.toFixed(MONEY_DECIMALS)
  })
}

/**
 * splitCheckTip for vendors that send integers of minor units: the shares are whole minor units
 * (rounded half away from zero, as the decimal split), the last taking the remainder. Computed in
 * bigint, so a tip times a line amount stays exact whatever their size.
 */
export function splitTipInMinorUnits(tip: number, lineAmounts: readonly (number | bigint)[]): number[] {
  const amounts = lineAmounts.map((amount) => BigInt(amount))
  const total = amounts.reduce((sum, amount) => sum + amount, 0n)
  // A check of free lines can still carry a tip: split it evenly rather than divide by zero.
  const weights = total > 0n ? amounts : amounts.map(() => 1n)
  const weightTotal = total > 0n ? total : BigInt(amounts.length)
  let given = 0
  return weights.map((weight, index) => {
    const share = index === weights.length - 1 ? tip - given : roundedQuotient(BigInt(tip) * weight, weightTotal)
    given += share
    return share
  })
}

/** dividend / divisor (a positive divisor) to the nearest integer, halves away from zero. */
function roundedQuotient(dividend: bigint, divisor: bigint): number {
  const magnitude = dividend < 0n ? -dividend : dividend
  const rounded = (2n * magnitude + divisor) / (2n * divisor)
  return Number(dividend < 0n ? -rounded : rounded)
}
