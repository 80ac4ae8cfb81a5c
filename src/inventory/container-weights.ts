import { type Decimal, decimal, decimalPlaces, QUANTITY_INPUT_DECIMALS, sum, toApiNumber, ZERO } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import { checkDecimalPlaces } from '../platform/number-input.js'
import { inventoryErrors } from './inventory.errors.js'
import type { ItemRow } from './inventory.repository.js'
import { type CountBody, WEIGHT_DECIMALS } from './inventory.schemas.js'
import { VOLUMETRIC_UNITS } from './units.js'

/**
 * Open containers counted by weight (DECISIONS, Bar operations → Weights): a bottle, can or keg item may
 * carry the weight of a full and of an empty container; a count line's open container of it then counts
 * (weight − empty) / (full − empty) of a unit, clamped to 0..1.
 */

/**
 * How far outside [empty, full] a weight may fall, as a share of the liquid's weight (full − empty):
 * within it, a wet bottle or a scale's drift (clamped to empty or full); beyond it, the wrong bottle on
 * the scale or a mistyped number, which is refused rather than counted.
 */
const WEIGHT_TOLERANCE = decimal('0.05')
const ROUND_DOWN = 0
const ROUND_UP = 3

/** The weight fields of a create or update: a number sets one, null clears it, absent keeps it. */
export interface WeightInput {
  full_weight_g?: number | null
  empty_weight_g?: number | null
}

/** The weight columns of an item (decimal strings, both or neither). */
export interface ItemWeights {
  full_weight_g: string | null
  empty_weight_g: string | null
}

const NO_WEIGHTS: ItemWeights = { full_weight_g: null, empty_weight_g: null }

/**
 * The weights an item of `unit` has once `input` applies to `current` (none for a new item): both or
 * neither, full above empty, only on a bottle, can or keg. The error names a weight field the request
 * gave, or `unit` when only the unit changed. Throws invalid_parameter.
 */
export function itemWeightsAfter(unit: string, input: WeightInput, current: ItemWeights = NO_WEIGHTS): ItemWeights {
  for (const field of ['full_weight_g', 'empty_weight_g'] as const) {
    const value = input[field]
    if (typeof value === 'number') checkDecimalPlaces(field, value, WEIGHT_DECIMALS)
  }
  const full = input.full_weight_g === undefined ? current.full_weight_g : input.full_weight_g
  const empty = input.empty_weight_g === undefined ? current.empty_weight_g : input.empty_weight_g
  if ((full === null) !== (empty === null)) {
    const missing = full === null ? 'full_weight_g' : 'empty_weight_g'
    throw invalidParameter(missing, null, 'full_weight_g and empty_weight_g go together: give both, or null for both')
  }
  if (full === null || empty === null) return NO_WEIGHTS
  // The field to name: a weight the request gave, else the unit it changed.
  const named = input.full_weight_g !== undefined ? 'full_weight_g' : input.empty_weight_g !== undefined ? 'empty_weight_g' : 'unit'
  const refuse = (message: string) => invalidParameter(named, named === 'unit' ? unit : input[named], message)
  if (!(VOLUMETRIC_UNITS as readonly string[]).includes(unit)) {
    throw refuse(`Only ${VOLUMETRIC_UNITS.join(', ')} items take container weights (full_weight_g, empty_weight_g), not ${unit} items`)
  }
  if (decimal(full).lte(empty)) throw refuse(`full_weight_g (${decimal(full)} g) must be above empty_weight_g (${decimal(empty)} g)`)
  return { full_weight_g: String(full), empty_weight_g: String(empty) }
}

type CountLineInput = CountBody['items'][number]

/** One weight of a count line, with the name of its field (`items[2].weights_g[1]`). */
interface LineWeight {
  grams: number
  field: string
}

function weightsOfLine(line: CountLineInput, index: number): LineWeight[] {
  const prefix = `items[${index}]`
  if (line.weight_g !== undefined && line.weights_g !== undefined) {
    throw invalidParameter(`${prefix}.weights_g`, line.weights_g, 'Give weight_g (one open container) or weights_g (several), not both')
  }
  if (line.weight_g !== undefined) return [{ grams: line.weight_g, field: `${prefix}.weight_g` }]
  return (line.weights_g ?? []).map((grams, position) => ({ grams, field: `${prefix}.weights_g[${position}]` }))
}

/** The fraction of a unit an open container of `grams` holds. Throws invalid_quantity outside the tolerated range. */
function fractionOf(weight: LineWeight, full: Decimal, empty: Decimal, item: ItemRow): Decimal {
  const { grams, field } = weight
  if (decimalPlaces(grams) > WEIGHT_DECIMALS) {
    throw inventoryErrors.invalidQuantity(`${field} takes at most ${WEIGHT_DECIMALS} decimals, got ${grams}`, { parameter: field, value: grams })
  }
  const liquid = full.minus(empty)
  const tolerance = liquid.times(WEIGHT_TOLERANCE)
  const floor = empty.minus(tolerance)
  // Rounded inward to the weights' decimals: every weight inside the range as shown is accepted.
  const lowest = (floor.lt(0) ? ZERO : floor).round(WEIGHT_DECIMALS, ROUND_UP)
  const highest = full.plus(tolerance).round(WEIGHT_DECIMALS, ROUND_DOWN)
  const weighed = decimal(grams)
  if (weighed.lt(lowest) || weighed.gt(highest)) {
    const range = { min_g: toApiNumber(lowest, WEIGHT_DECIMALS), max_g: toApiNumber(highest, WEIGHT_DECIMALS) }
    throw inventoryErrors.invalidQuantity(
      `${field}: ${grams} g is outside ${range.min_g}–${range.max_g} g, the weights of an open ${item.name} (empty ${empty} g to full ${full} g, give or take 5 % of its liquid)`,
      { parameter: field, value: grams, ...range },
    )
  }
  const fraction = weighed.minus(empty).div(liquid)
  return fraction.lt(0) ? ZERO : fraction.gt(1) ? decimal(1) : fraction
}

/**
 * What a count line counted: `fullUnits` (its quantity) plus the fraction of each weighed open container,
 * rounded to 3 decimals, and the weights to keep on the line (null when counted by eye). Throws
 * invalid_parameter (weight_g with weights_g, weights on an item without both weights) and
 * invalid_quantity (a weight out of range), naming the line's field.
 */
export function countedQuantity(line: CountLineInput, index: number, item: ItemRow, fullUnits: Decimal): { actual: Decimal; weights: number[] | null } {
  const weights = weightsOfLine(line, index)
  if (weights.length === 0) return { actual: fullUnits, weights: null }
  if (item.full_weight_g === null || item.empty_weight_g === null) {
    const first = weights[0] as LineWeight
    throw invalidParameter(first.field, first.grams, `Item ${item.id} has no full_weight_g and empty_weight_g: set them on the item to count it by weight`)
  }
  const full = decimal(item.full_weight_g)
  const empty = decimal(item.empty_weight_g)
  const fractions = weights.map((weight) => fractionOf(weight, full, empty, item))
  return { actual: fullUnits.plus(sum(fractions)).round(QUANTITY_INPUT_DECIMALS), weights: weights.map((weight) => weight.grams) }
}
