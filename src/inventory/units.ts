/** Units of measurement and categories of DECISIONS.md. */
export const UNITS = ['bottle', 'can', 'keg', 'case', 'each', 'ml', 'liter', 'oz', 'gallon', 'g', 'kg', 'lb'] as const
export type Unit = (typeof UNITS)[number]

/** Units whose items hold a volume given by size_ml. */
export const VOLUMETRIC_UNITS: readonly Unit[] = ['bottle', 'can', 'keg']

export const CATEGORIES = ['spirits', 'liqueur', 'beer', 'wine', 'cider', 'mixer', 'non_alcoholic', 'food', 'supplies', 'other'] as const
export type Category = (typeof CATEGORIES)[number]

export function isUnit(value: string): value is Unit {
  return (UNITS as readonly string[]).includes(value)
}
