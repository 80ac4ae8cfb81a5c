import { formatQuantity, parseQuantity } from '../ui.js'

/** What the count screen knows of an item to check an entry against (absent in a draft saved before checks). */
export interface Expected {
  unit: string
  /** The stock the service expected when the count started. */
  quantity?: number
  par_level?: number | null
}

/**
 * The most a count may show before the screen asks to check it: twice the expected stock plus one unit, or
 * the par level (the most the bar means to hold) when that is more. Past it is most often a slip of the
 * finger (75 for 7.5) or a delivery nobody recorded; either is worth a look before it becomes the stock.
 */
export function plausibleCeiling(item: Expected): number | undefined {
  if (item.quantity === undefined) return undefined
  return Math.max(2 * Math.max(item.quantity, 0) + 1, item.par_level ?? 0)
}

/** Why an entry looks wrong, or undefined: below zero, or above the plausible ceiling. The count may still be sent. */
export function entryWarning(item: Expected, typed: string, openContainers = 0): string | undefined {
  const quantity = parseQuantity(typed)
  if (quantity === undefined) return undefined
  if (quantity < 0) return `${typed.trim()} is below zero: a count is what stands on the shelf, 0 or more.`
  const ceiling = plausibleCeiling(item)
  const counted = quantity + openContainers
  if (ceiling === undefined || counted <= ceiling) return undefined
  return `${counted} ${item.unit} is far more than the ${formatQuantity(item.quantity!)} expected here: check for a slip (7.5, not 75) or a delivery nobody recorded.`
}
