import type Big from 'big.js'
import { PosAdapterError } from '../adapter.js'
import { decimal, MONEY_DECIMALS, sum, UNIT_COST_DECIMALS, ZERO } from '../../platform/decimal.js'

/**
 * Money arithmetic that several vendor mappers share: vendors that report a line's extended amount
 * need its unit price, and vendors that report a tip per check need each line's share of it.
 */

/** A vendor's decimal (a JSON number or a decimal string) as a Big; anything else is invalid_response. */
export function readVendorDecimal(vendor: string, value: unknown, field: string): Big {
  if (typeof value === 'number' && Number.isFinite(value)) return decimal(value)
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return decimal(value.trim())
  throw new PosAdapterError('invalid_response', `${vendor} sent ${field} ${JSON.stringify(value)}, not a decimal`)
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
    const share = index === weights.length - 1 ? tip.minus(given) : tip.times(weight).div(weightTotal).round(MONEY_DECIMALS)
    given = given.plus(share)
    return share.toFixed(MONEY_DECIMALS)
  })
}
