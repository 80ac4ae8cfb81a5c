import { type PublicHoliday, publicHolidays } from './holidays.js'
import { DAY_MS } from '../../platform/zoned-time.js'

/** How far back past occurrences of a holiday are looked at: two years, so a yearly holiday has two. */
export const HOLIDAY_LOOKBACK_DAYS = 730
/** The usual level of a holiday: the same weekday this many days before and after it. */
const REFERENCE_OFFSETS = [-14, -7, 7, 14] as const
/** Past occurrences with a usual level needed before a holiday's effect is applied. */
export const MIN_OCCURRENCES = 2
/**
 * Weight, in occurrences, of "no effect" (a factor of 1) in the shrunk mean ratio: two occurrences that
 * sold 1.6 × usual give 1 + 0.6 × 2 / 3 = 1.4.
 */
const PRIOR_OCCURRENCES = 1
/** Shrunk factors closer to 1 than this are left out: an ordinary day. */
const MIN_EFFECT = 0.05

/** One forecast day scaled by its holiday's effect at the location. */
export interface HolidayEffect {
  date: string
  holiday: string
  /** What the model's forecast for the day was multiplied by (0: the location was closed on every past occurrence). */
  factor: number
}

const shift = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)

/** A past occurrence of a holiday and the days whose sales give its usual level. */
export interface HolidayOccurrence extends PublicHoliday {
  references: string[]
}

/**
 * The public holidays of the country in the HOLIDAY_LOOKBACK_DAYS up to `through` (the last day of
 * history), each with its reference days (the same weekday 1 and 2 weeks either side, inside the
 * history and not themselves holidays).
 */
export function pastHolidays(country: string | null, through: string): HolidayOccurrence[] {
  const from = shift(through, -(HOLIDAY_LOOKBACK_DAYS - 1))
  const holidays = publicHolidays(country, shift(from, REFERENCE_OFFSETS[0]), shift(through, REFERENCE_OFFSETS[REFERENCE_OFFSETS.length - 1] ?? 0))
  const holidayDates = new Set(holidays.map((holiday) => holiday.date))
  return holidays
    .filter((holiday) => holiday.date >= from && holiday.date <= through)
    .map((holiday) => ({
      ...holiday,
      references: REFERENCE_OFFSETS.map((offset) => shift(holiday.date, offset)).filter((day) => day <= through && !holidayDates.has(day)),
    }))
}

/** Every day whose sales `holidayFactors` reads for these occurrences. */
export function daysToRead(occurrences: readonly HolidayOccurrence[]): string[] {
  return [...new Set(occurrences.flatMap((occurrence) => [occurrence.date, ...occurrence.references]))].sort()
}

/** The holiday's sales ÷ the mean of its reference days with sales; null without a sale on a reference day either side. */
function occurrenceRatio(occurrence: HolidayOccurrence, salesOn: (day: string) => number): number | null {
  const open = occurrence.references.filter((day) => salesOn(day) > 0)
  if (!open.some((day) => day < occurrence.date) || !open.some((day) => day > occurrence.date)) return null
  const usual = open.reduce((total, day) => total + salesOn(day), 0) / open.length
  return salesOn(occurrence.date) / usual
}

/**
 * Each holiday's factor at a location from its past occurrences (`salesOn`: the location's sales on a
 * day, 0 without any), by holiday name. A holiday needs MIN_OCCURRENCES occurrences with a usual level
 * (a sale on a reference day either side; before the location traded there is none): 0 when it sold
 * nothing on every one (closed); else, when every occurrence lies on the same side of usual, the mean
 * ratio shrunk toward 1 by PRIOR_OCCURRENCES, kept when it moves the day by MIN_EFFECT or more.
 * Holidays whose occurrences disagree, or are too few, are ordinary days and absent.
 */
export function holidayFactors(occurrences: readonly HolidayOccurrence[], salesOn: (day: string) => number): Map<string, number> {
  const ratios = new Map<string, number[]>()
  for (const occurrence of occurrences) {
    const ratio = occurrenceRatio(occurrence, salesOn)
    if (ratio !== null) ratios.set(occurrence.name, [...(ratios.get(occurrence.name) ?? []), ratio])
  }
  const factors = new Map<string, number>()
  for (const [name, values] of ratios) {
    if (values.length < MIN_OCCURRENCES) continue
    if (values.every((ratio) => ratio === 0)) {
      factors.set(name, 0)
      continue
    }
    if (!values.every((ratio) => ratio < 1) && !values.every((ratio) => ratio > 1)) continue
    const meanRatio = values.reduce((total, ratio) => total + ratio, 0) / values.length
    const factor = 1 + ((meanRatio - 1) * values.length) / (values.length + PRIOR_OCCURRENCES)
    if (Math.abs(factor - 1) >= MIN_EFFECT) factors.set(name, factor)
  }
  return factors
}

/**
 * The forecast with each day that is a public holiday of the country with a factor multiplied by it,
 * and the effects applied. `firstDay` is the date of daily[0].
 */
export function applyHolidayFactors(daily: readonly number[], firstDay: string, country: string | null, factors: ReadonlyMap<string, number>) {
  const adjusted = [...daily]
  const effects: HolidayEffect[] = []
  if (factors.size === 0) return { daily: adjusted, effects }
  for (const holiday of publicHolidays(country, firstDay, shift(firstDay, daily.length - 1))) {
    const unrounded = factors.get(holiday.name)
    const index = Math.round((Date.parse(`${holiday.date}T00:00:00Z`) - Date.parse(`${firstDay}T00:00:00Z`)) / DAY_MS)
    // Two holidays on one day: the first with a factor counts.
    if (unrounded === undefined || effects.some((effect) => effect.date === holiday.date)) continue
    // Applied as shown: 2 decimals.
    const factor = Number(unrounded.toFixed(2))
    adjusted[index] = (adjusted[index] ?? 0) * factor
    effects.push({ date: holiday.date, holiday: holiday.name, factor })
  }
  return { daily: adjusted, effects }
}
