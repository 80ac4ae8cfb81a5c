import { ML_PER_US_FL_OZ } from '../../inventory/conversion.js'
import { type Serving, parseBarName } from './bar-names.js'

/**
 * The conversion an auto-made mapping starts with, read from the POS name: a size in the name (1.5oz,
 * 16oz, 6oz glass) is the pour; the item's own size means a whole bottle or can; otherwise US bar
 * conventions (a 1.5 oz shot, 3 oz double, 5 oz glass of wine, 16 oz pint). Operators review these in
 * the mappings list; they are conventions, not measurements.
 */

export interface StockItemShape {
  unit: string
  size_ml: number | null
  category: string
}

export interface Conversion {
  factor: number
  unit: string
}

const SERVING_OZ: Partial<Record<Serving, number>> = { pour: 1.5, double: 3, glass: 5, draft: 16 }
const CATEGORY_OZ: Record<string, number> = { spirits: 1.5, liqueur: 1.5, wine: 5 }
const SAME_SIZE_TOLERANCE = 0.05

function isVolumetric(item: StockItemShape): boolean {
  return (item.unit === 'bottle' || item.unit === 'can' || item.unit === 'keg') && item.size_ml !== null
}

function toOz(ml: number): number {
  return Math.round((ml / Number(ML_PER_US_FL_OZ)) * 100) / 100
}

export function defaultConversionFor(posName: string, item: StockItemShape): Conversion {
  const whole = { factor: 1, unit: item.unit }
  if (!isVolumetric(item)) return whole
  const { sizeMl, serving } = parseBarName(posName)
  const itemMl = item.size_ml as number
  if (sizeMl !== undefined) {
    return Math.abs(sizeMl - itemMl) / itemMl <= SAME_SIZE_TOLERANCE ? whole : { factor: toOz(sizeMl), unit: 'oz' }
  }
  if (serving === 'bottle' || serving === 'can') return whole
  const oz = (serving && SERVING_OZ[serving]) ?? (item.unit === 'keg' ? SERVING_OZ.draft : CATEGORY_OZ[item.category])
  return oz === undefined ? whole : { factor: oz, unit: 'oz' }
}
