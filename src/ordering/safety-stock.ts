/** The standard normal's 95th percentile: safety stock for a 95 % cycle service level. */
export const SERVICE_LEVEL_Z = 1.645

/**
 * Safety stock for a 95 % cycle service level: the 95th percentile of demand over the horizon, less its
 * forecast `demand`, where demand is a gamma variable of that mean and of standard deviation
 * `errorStdDev` (the forecast's error over the horizon). Demand is never negative and its totals are
 * skewed to the right, most for slow movers (an item sold a few times a week sells 0, 2 or 6 in a
 * fortnight): a gamma of mean μ and CV σ/μ has that skew (2 × CV), where a normal z × σ under-covers it.
 * The percentile is Wilson and Hilferty's: a gamma variable's cube root is close to normal, so with shape
 * k = (μ/σ)² the 95th percentile is μ × (1 − 1/(9k) + z/(3√k))³. Without a forecast demand, z × σ.
 */
export function safetyStock(demand: number, errorStdDev: number): number {
  if (errorStdDev <= 0) return 0
  if (demand <= 0) return SERVICE_LEVEL_Z * errorStdDev
  const shape = (demand / errorStdDev) ** 2
  const percentile = demand * Math.max(0, 1 - 1 / (9 * shape) + SERVICE_LEVEL_Z / (3 * Math.sqrt(shape))) ** 3
  return Math.max(0, percentile - demand)
}
