import { publicHolidays } from './holidays.js'
import { DAY_MS } from '../../platform/zoned-time.js'

/** Past years the location's sales are looked at: two, so one odd year does not decide alone. */
export const SEASON_YEARS = 2
/** A year back is 52 weeks, so each day is compared with the same weekday. */
const YEAR_DAYS = 364
/** Days before the origin, a year back, whose sales are the level the fortnights after it are compared with. */
const LEVEL_DAYS = 28
/** Forecast days that share one factor: the fortnight an order covers. */
export const SEASON_BLOCK_DAYS = 14
/** Share of the (logarithmic) effect kept: halfway towards none, since two past years are thin evidence. */
const EFFECT_KEPT = 0.5
/** A past year counts when the location sold on at least this share of each window's days. */
const MIN_TRADING_SHARE = 0.5

const shift = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
const daysFrom = (first: string, count: number) => Array.from({ length: count }, (_, index) => shift(first, index))

/** The past year's windows around one forecast: the level days before the origin, then each block's days. */
function pastWindows(firstForecastDay: string, horizon: number, yearsBack: number) {
  const origin = shift(firstForecastDay, -YEAR_DAYS * yearsBack)
  const blocks = Math.ceil(horizon / SEASON_BLOCK_DAYS)
  return {
    level: daysFrom(shift(origin, -LEVEL_DAYS), LEVEL_DAYS),
    blocks: Array.from({ length: blocks }, (_, block) => daysFrom(shift(origin, block * SEASON_BLOCK_DAYS), SEASON_BLOCK_DAYS)),
  }
}

/** Every day whose sales `seasonFactors` reads for a forecast of `horizon` days from `firstForecastDay`. */
export function seasonDaysToRead(firstForecastDay: string, horizon: number): string[] {
  const days = Array.from({ length: SEASON_YEARS }, (_, year) => pastWindows(firstForecastDay, horizon, year + 1)).flatMap((windows) => [
    ...windows.level,
    ...windows.blocks.flat(),
  ])
  return [...new Set(days)].sort()
}

/** Mean sales over the days that are not public holidays (they have factors of their own), or null when the location traded on under MIN_TRADING_SHARE of them. */
function usualSales(days: readonly string[], holidays: ReadonlySet<string>, salesOn: (day: string) => number): number | null {
  const ordinary = days.filter((day) => !holidays.has(day))
  const sales = ordinary.map(salesOn)
  if (sales.length === 0 || sales.filter((value) => value > 0).length < MIN_TRADING_SHARE * ordinary.length) return null
  return sales.reduce((total, value) => total + value, 0) / sales.length
}

/**
 * The season of the year at a location: for each SEASON_BLOCK_DAYS block of a forecast of `horizon` days
 * from `firstForecastDay`, how that fortnight sold, a year and two years back (52 and 104 weeks), against
 * the LEVEL_DAYS before the origin then (`salesOn`: the location's sales on a day, 0 without any; public
 * holidays of `country` left out of both, as their own factors scale them). The level a model fits from
 * recent weeks does not know that January sells less than December, nor a summer lull: this ratio does.
 * Per block: the geometric mean of the years' ratios (a year counts where the location traded on at
 * least half the days of both windows), EFFECT_KEPT of its logarithm kept; 1 without a counted year.
 */
export function seasonFactors(firstForecastDay: string, horizon: number, country: string | null, salesOn: (day: string) => number): number[] {
  const readDays = seasonDaysToRead(firstForecastDay, horizon)
  const holidays = new Set(publicHolidays(country, readDays[0] ?? firstForecastDay, readDays[readDays.length - 1] ?? firstForecastDay).map((holiday) => holiday.date))
  const logRatios = Array.from({ length: Math.ceil(horizon / SEASON_BLOCK_DAYS) }, () => [] as number[])
  for (let yearsBack = 1; yearsBack <= SEASON_YEARS; yearsBack++) {
    const windows = pastWindows(firstForecastDay, horizon, yearsBack)
    const level = usualSales(windows.level, holidays, salesOn)
    if (level === null) continue
    windows.blocks.forEach((days, block) => {
      const sales = usualSales(days, holidays, salesOn)
      if (sales !== null) logRatios[block]?.push(Math.log(sales / level))
    })
  }
  return logRatios.map((ratios) => (ratios.length === 0 ? 1 : Math.exp((EFFECT_KEPT * ratios.reduce((total, value) => total + value, 0)) / ratios.length)))
}

/** The forecast with each day multiplied by its block's season factor (factors[⌊day ÷ SEASON_BLOCK_DAYS⌋]). */
export function applySeasonFactors(daily: readonly number[], factors: readonly number[]): number[] {
  return daily.map((value, day) => value * (factors[Math.floor(day / SEASON_BLOCK_DAYS)] ?? 1))
}
