import { checksForDay, MENU, seededRandom } from '../src/pos/simulation/bar-data.js'
import { DAY_MS } from '../src/platform/zoned-time.js'

/**
 * Daily demand series of known structure for the forecast benches, deterministic per seed: each family
 * isolates one thing a bar's demand does (weekly rhythm, trends, level shifts, intermittent sales,
 * holiday spikes, noise), plus the POS simulators' bar, one series per menu item.
 */

export type Family = 'weekly' | 'trend_up' | 'trend_down' | 'level_shift' | 'intermittent' | 'holiday_spikes' | 'noisy' | 'flat' | 'pos_bar'

export interface BenchSeries {
  family: Family
  name: string
  values: number[]
  /** The expected demand of each day, where the generator knows it (synthetic families). */
  expected: number[] | null
  /** The truth, where the generator knows it: does a weekly season exist, and which way does demand go. */
  truth: { seasonality: 'weekly' | 'none'; trend: 'increasing' | 'decreasing' | 'stable' | null }
}

export const SYNTHETIC_FAMILIES: readonly Family[] = ['weekly', 'trend_up', 'trend_down', 'level_shift', 'intermittent', 'holiday_spikes', 'noisy', 'flat']

/** A bar's week (0 = the series' first day), as the POS simulator uses: Friday and Saturday busiest. */
const BAR_WEEK = [1.0, 0.6, 0.7, 0.8, 1.2, 1.9, 2.1]

class Sampler {
  readonly random: () => number
  constructor(seed: number) {
    this.random = seededRandom(seed)
  }
  uniform(low: number, high: number): number {
    return low + (high - low) * this.random()
  }
  integer(low: number, high: number): number {
    return Math.floor(this.uniform(low, high + 1))
  }
  gaussian(): number {
    // Box–Muller; 1 − u keeps the logarithm finite.
    return Math.sqrt(-2 * Math.log(1 - this.random())) * Math.cos(2 * Math.PI * this.random())
  }
  /** Poisson count (Knuth's method below 30, a rounded normal above: exact enough for a bench). */
  poisson(rate: number): number {
    if (rate <= 0) return 0
    if (rate > 30) return Math.max(0, Math.round(rate + Math.sqrt(rate) * this.gaussian()))
    const limit = Math.exp(-rate)
    let count = 0
    for (let product = this.random(); product > limit; product *= this.random()) count++
    return count
  }
  /** Demand around `rate`: Poisson counts over a lognormal day-to-day factor of coefficient of variation ≈ cv. */
  demand(rate: number, cv: number): number {
    const sigma = Math.sqrt(Math.log(1 + cv * cv))
    return this.poisson(rate * Math.exp(sigma * this.gaussian() - (sigma * sigma) / 2))
  }
}

/** A weekly profile: the bar's week, each day jittered by up to ±`jitter`, scaled to mean 1. */
function weekProfile(sampler: Sampler, strength: number, jitter: number): number[] {
  const profile = BAR_WEEK.map((factor) => (1 + strength * (factor - 1)) * sampler.uniform(1 - jitter, 1 + jitter))
  const average = profile.reduce((sum, value) => sum + value, 0) / profile.length
  const offset = sampler.integer(0, 6)
  return profile.map((_, day) => (profile[(day + offset) % 7] ?? 1) / average)
}

/** One series of `family`: an expected rate per day (level × week × the family's change) drawn with noise. */
function generateSynthetic(family: Family, seed: number, days: number): BenchSeries {
  const sampler = new Sampler(seed)
  const level = sampler.uniform(4, 80)
  let week = weekProfile(sampler, 1, 0.15)
  let cv = sampler.uniform(0.05, 0.2)
  let truth: BenchSeries['truth'] = { seasonality: 'weekly', trend: 'stable' }
  let rateOf = (day: number) => level * (week[day % 7] ?? 1)
  if (family === 'trend_up' || family === 'trend_down') {
    // Demand grows 12–30 % (or shrinks 12–25 %) every 30 days: more than the 10 % a trend is reported from.
    const monthly = family === 'trend_up' ? 1 + sampler.uniform(0.12, 0.3) : 1 - sampler.uniform(0.12, 0.25)
    // Anchored at the series' end so the level there is `level` (its last weeks are what is forecast).
    rateOf = (day) => level * monthly ** ((day - days) / 30) * (week[day % 7] ?? 1)
    truth = { seasonality: 'weekly', trend: family === 'trend_up' ? 'increasing' : 'decreasing' }
  } else if (family === 'level_shift') {
    const shiftDay = days - sampler.integer(20, 90)
    const factor = sampler.random() < 0.5 ? sampler.uniform(0.4, 0.7) : sampler.uniform(1.4, 2)
    rateOf = (day) => level * (day >= shiftDay ? factor : 1) * (week[day % 7] ?? 1)
    truth = { seasonality: 'weekly', trend: null }
  } else if (family === 'intermittent') {
    const meanRate = sampler.uniform(0.15, 1.5)
    week = weekProfile(sampler, 0.5, 0.1)
    rateOf = (day) => meanRate * (week[day % 7] ?? 1)
    cv = 0.3
    truth = { seasonality: 'none', trend: 'stable' }
  } else if (family === 'holiday_spikes') {
    // About one day in 30 sells 2–3.5 times its usual amount (a holiday or an event), wherever it falls.
    const spikes = new Map<number, number>()
    for (let day = 0; day < days; day++) if (sampler.random() < 1 / 30) spikes.set(day, sampler.uniform(2, 3.5))
    rateOf = (day) => level * (spikes.get(day) ?? 1) * (week[day % 7] ?? 1)
    truth = { seasonality: 'weekly', trend: null }
  } else if (family === 'noisy') {
    cv = sampler.uniform(0.35, 0.6)
  } else if (family === 'flat') {
    week = weekProfile(sampler, 0, 0)
    truth = { seasonality: 'none', trend: 'stable' }
  }
  const values = Array.from({ length: days }, (_, day) => sampler.demand(rateOf(day), cv))
  const expected = Array.from({ length: days }, (_, day) => rateOf(day))
  return { family, name: `${family}-${seed}`, values, expected, truth }
}

/** `perFamily` series of every synthetic family, `days` long, from seeds base + 1, base + 2, …. */
export function syntheticSeries(perFamily: number, days: number, base = 0): BenchSeries[] {
  return SYNTHETIC_FAMILIES.flatMap((family, familyIndex) =>
    Array.from({ length: perFamily }, (_, index) => generateSynthetic(family, base + familyIndex * 10_000 + index + 1, days)),
  )
}

/**
 * One series per menu item of the simulator's bar `seed`: units sold per business day (voided and
 * refunded lines excluded), over `days` days from `firstDay`, as the simulators serve them.
 */
export function posBarSeries(seed: number, firstDay: string, days: number, volume = 1): BenchSeries[] {
  const start = Date.parse(`${firstDay}T00:00:00Z`)
  const byItem = new Map(MENU.map((entry) => [entry.key, new Array<number>(days).fill(0)]))
  for (let day = 0; day < days; day++) {
    for (const check of checksForDay(seed, start + day * DAY_MS, volume)) {
      for (const line of check.lines) {
        const daily = byItem.get(line.itemKey)
        if (daily && !line.voided && !line.refunded) daily[day] = (daily[day] ?? 0) + line.quantity
      }
    }
  }
  return [...byItem].map(([key, values]) => ({
    family: 'pos_bar' as const,
    name: `bar${seed}-${key}`,
    values,
    expected: null,
    truth: { seasonality: 'weekly' as const, trend: 'stable' as const },
  }))
}
