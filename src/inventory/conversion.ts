import { type Decimal, decimal } from '../platform/decimal.js'
import { inventoryErrors } from './inventory.errors.js'
import { VOLUMETRIC_UNITS } from './units.js'

/**
 * Conversion between what a POS sells and what the stock holds. A mapping's conversion_factor is an
 * amount of the item per POS unit, in the mapping's conversion_unit: by default oz for bottle, can and
 * keg items (converted through size_ml), else the item's own unit.
 */

/** 1 US fluid ounce. */
export const ML_PER_US_FL_OZ = '29.5735'

const ML_PER: Record<string, string> = { ml: '1', liter: '1000', oz: ML_PER_US_FL_OZ, gallon: '3785.4118' }
const GRAMS_PER: Record<string, string> = { g: '1', kg: '1000', lb: '453.59237' }

export interface StockUnitOf {
  unit: string
  size_ml: number | null
}

function isVolumetric(item: StockUnitOf): boolean {
  return (VOLUMETRIC_UNITS as readonly string[]).includes(item.unit) && item.size_ml !== null
}

export function defaultConversionUnit(item: StockUnitOf): string {
  return isVolumetric(item) ? 'oz' : item.unit
}

/** How many item units one `unit` is, or undefined when the two do not convert. */
function itemUnitsPer(unit: string, item: StockUnitOf): Decimal | undefined {
  if (unit === item.unit) return decimal(1)
  const ml = ML_PER[unit]
  if (ml !== undefined) {
    if (isVolumetric(item)) return decimal(ml).div(item.size_ml as number)
    const itemMl = ML_PER[item.unit]
    return itemMl === undefined ? undefined : decimal(ml).div(itemMl)
  }
  const grams = GRAMS_PER[unit]
  const itemGrams = GRAMS_PER[item.unit]
  return grams !== undefined && itemGrams !== undefined ? decimal(grams).div(itemGrams) : undefined
}

/** The units an amount of the item may be given in: its own, and the volumes or weights it converts from. */
export function convertibleUnits(item: StockUnitOf): string[] {
  return Object.keys({ ...ML_PER, ...GRAMS_PER, [item.unit]: 1 }).filter((candidate) => itemUnitsPer(candidate, item))
}

/** `quantity` of `unit` in item units (1.5 oz of a 750 ml bottle: 0.059147 bottle), or undefined when they do not convert. */
export function toItemUnits(quantity: Decimal, unit: string, item: StockUnitOf): Decimal | undefined {
  const per = itemUnitsPer(unit, item)
  return per === undefined ? undefined : quantity.times(per)
}

/** The conversion unit to store for an item: the requested one if it converts, else invalid_unit saying what to send. */
export function checkConversionUnit(item: StockUnitOf, requested: string | undefined): string {
  const unit = requested ?? defaultConversionUnit(item)
  if (itemUnitsPer(unit, item) === undefined) {
    const allowed = `${convertibleUnits(item).join(', ')}${volumeHint(item, unit)}`
    throw inventoryErrors.invalidUnit([unit, allowed], { parameter: 'conversion_unit', value: unit })
  }
  return unit
}

/**
 * What to send instead of a volume for a container without size_ml: a keg of unknown size cannot say what
 * a pint of it is, so either the item gets its size or the mapping counts containers.
 */
function volumeHint(item: StockUnitOf, unit: string): string {
  if (ML_PER[unit] === undefined || !(VOLUMETRIC_UNITS as readonly string[]).includes(item.unit)) return ''
  return ` (the item has no size_ml: give the item a size_ml, or use conversion_unit ${item.unit} with a factor of 1/(${unit} per ${item.unit}))`
}

/** Item units that `posUnits` sold POS units take from stock under a mapping. */
export function stockUsed(posUnits: Decimal, factor: string, conversionUnit: string, item: StockUnitOf): Decimal {
  const per = itemUnitsPer(conversionUnit, item)
  // The item's unit changed after the mapping was made, to one the mapping's unit does not convert to:
  // read the factor in the item's own unit rather than lose the sale.
  return posUnits.times(factor).times(per ?? 1)
}

/** What a usage warning reads of an item. */
export interface UsageCheckOf {
  name: string
  unit: string
  category: string
}

/** Bottles and cans of these categories are sold whole: a sale takes a container, not a pour of it. */
const SOLD_BY_THE_CONTAINER = { categories: ['beer', 'cider'], units: ['bottle', 'can'] }

/**
 * Why taking `unitsPerSale` of the item for one POS unit looks wrong, or undefined when it looks right:
 * more than one container per sale (16 kegs per pint), or, when `soldWhole` may apply (an item mapping,
 * not a recipe's ingredient), less than one bottle or can of beer or cider (1 oz of a bottled beer: the
 * volumetric default read a factor of 1 as 1 oz). The mapping works either way; this is for the person.
 */
export function implausibleUsage(item: UsageCheckOf, unitsPerSale: Decimal, options: { soldWhole: boolean }): string | undefined {
  if (!(VOLUMETRIC_UNITS as readonly string[]).includes(item.unit)) return undefined
  const units = `${Number(unitsPerSale.prec(4))} ${item.unit}`
  if (unitsPerSale.gt(1)) {
    return `1 sale takes ${units} of ${item.name}: more than one ${item.unit} per sale; check conversion_factor and conversion_unit`
  }
  const soldByTheContainer = SOLD_BY_THE_CONTAINER.units.includes(item.unit) && SOLD_BY_THE_CONTAINER.categories.includes(item.category)
  if (options.soldWhole && soldByTheContainer && unitsPerSale.lt(1)) {
    return `1 sale takes ${units} of ${item.name}, a ${item.category} sold by the ${item.unit}: use conversion_unit ${item.unit} with a factor of 1`
  }
  return undefined
}

/** What converts between items of one SKU: their unit and, for a case, the units it holds. */
export interface SkuUnitOf {
  unit: string
  case_size: number | null
}

/**
 * How many units of `to` one unit of `from` is, for two items of one SKU (which agree on size_ml, and on
 * unit but for `case`): 1 in the same unit; between a case and the units it holds, through the case
 * item's case_size; undefined when a case item has no case_size.
 */
export function skuUnitsPer(from: SkuUnitOf, to: SkuUnitOf): Decimal | undefined {
  if (from.unit === to.unit) return decimal(1)
  if (to.unit === 'case' && to.case_size !== null) return decimal(1).div(to.case_size)
  if (from.unit === 'case' && from.case_size !== null) return decimal(from.case_size)
  return undefined
}
