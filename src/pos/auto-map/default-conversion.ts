import { ML_PER_US_FL_OZ } from '../../inventory/index.js'
import { type Serving, parseBarName } from './bar-names.js'

/**
 * The conversion an auto-made mapping starts with, read from the POS name: a size in the name (1.5oz,
 * 16oz, 6oz glass) is the pour; the item's own size means a whole bottle or can; otherwise US bar
 * conventions (a 1.5 oz shot, 3 oz double, 5 oz glass of wine, 16 oz pint). Operators review these in
 * the mappings list; they are conventions, not measurements.
 *
 * When the pour cannot be converted into the item's unit (ounces of a keg without size_ml, a pint of an
 * item counted in cases), there is no conversion but a reason: such a match is never mapped
 * automatically, it waits for review (a keg mapped at one keg per pour once took 788 kegs off stock).
 */

export interface StockItemShape {
  name?: string
  unit: string
  size_ml: number | null
  category: string
}

export interface Conversion {
  factor: number
  unit: string
}

/** A conversion, or why none can be computed. */
export type DefaultConversion = { conversion: Conversion } | { reviewReason: string }

const SERVING_OZ: Partial<Record<Serving, number>> = { pour: 1.5, double: 3, glass: 5, draft: 16 }
const CATEGORY_OZ: Record<string, number> = { spirits: 1.5, liqueur: 1.5, wine: 5 }
const SAME_SIZE_TOLERANCE = 0.05
const CONTAINER_UNITS = new Set(['bottle', 'can', 'keg'])
const VOLUME_UNITS = new Set(['ml', 'liter', 'oz', 'gallon'])

function toOz(ml: number): number {
  return Math.round((ml / Number(ML_PER_US_FL_OZ)) * 100) / 100
}

/** The pour a POS name sells, in ounces, when it says one (a size, or a serving word with a convention). */
function pourOz(sizeMl: number | undefined, serving: Serving | undefined, item: StockItemShape): number | undefined {
  if (sizeMl !== undefined) return toOz(sizeMl)
  return (serving && SERVING_OZ[serving]) ?? (item.unit === 'keg' ? SERVING_OZ.draft : CATEGORY_OZ[item.category])
}

export function defaultConversionFor(posName: string, item: StockItemShape): DefaultConversion {
  const whole = { conversion: { factor: 1, unit: item.unit } }
  const { sizeMl, serving } = parseBarName(posName)
  const soldWhole = serving === 'bottle' || serving === 'can'
  if (CONTAINER_UNITS.has(item.unit)) {
    if (item.size_ml === null) {
      // Without the container's size a pour cannot become a fraction of it; a whole bottle or can can.
      if (item.unit !== 'keg' && (soldWhole || (sizeMl === undefined && serving === undefined))) return whole
      return { reviewReason: `the item is counted in ${item.unit}s without size_ml, so a pour cannot be converted: set its size_ml, or map by hand` }
    }
    if (sizeMl !== undefined && Math.abs(sizeMl - item.size_ml) / item.size_ml <= SAME_SIZE_TOLERANCE) return whole
    if (sizeMl === undefined && soldWhole) return whole
    const oz = pourOz(sizeMl, serving, item)
    return oz === undefined ? whole : { conversion: { factor: oz, unit: 'oz' } }
  }
  if (VOLUME_UNITS.has(item.unit)) {
    const oz = soldWhole && sizeMl === undefined ? undefined : pourOz(sizeMl, serving, item)
    if (oz !== undefined) return { conversion: { factor: oz, unit: 'oz' } }
    return { reviewReason: `the item is counted in ${item.unit} and the POS name says no pour size: map it by hand with the pour` }
  }
  // each, g, kg, lb: a sale is one unit unless the name sells a measure of a drink; a case never is one sale.
  if (item.unit !== 'case' && (soldWhole || (sizeMl === undefined && serving === undefined))) return whole
  if (item.unit === 'case' && sizeMl === undefined && serving === undefined) return whole
  return { reviewReason: `a ${serving ?? 'measured'} sale cannot be converted into ${item.unit}: map it by hand` }
}
