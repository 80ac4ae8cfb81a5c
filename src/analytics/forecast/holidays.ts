import Holidays from 'date-holidays'
import { DAY_MS } from '../../platform/zoned-time.js'

/** One parsed calendar per country code asked for (date-holidays builds its rules on construction). */
const calendars = new Map<string, Holidays>()

function calendarOf(country: string): Holidays {
  const code = country.toUpperCase()
  let calendar = calendars.get(code)
  if (!calendar) {
    // An unknown code gives a calendar without holidays, which is the answer wanted for it.
    calendar = new Holidays(code)
    calendars.set(code, calendar)
  }
  return calendar
}

export interface PublicHoliday {
  /** The country's own calendar date, YYYY-MM-DD. */
  date: string
  /** English name where the data has one. */
  name: string
}

function parseDay(day: string, label: string): number {
  const time = Date.parse(`${day}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(time)) throw new RangeError(`${label} must be YYYY-MM-DD, got ${day}`)
  return time
}

/**
 * Public holidays (type 'public' in date-holidays) of an ISO 3166 alpha-2 country in [from, to], both
 * 'YYYY-MM-DD', in date order; [] for null or an unknown country.
 */
export function publicHolidays(country: string | null, from: string, to: string): PublicHoliday[] {
  parseDay(from, 'from')
  parseDay(to, 'to')
  if (country === null || to < from) return []
  const calendar = calendarOf(country)
  const holidays: PublicHoliday[] = []
  for (let year = Number(from.slice(0, 4)); year <= Number(to.slice(0, 4)); year++) {
    for (const holiday of calendar.getHolidays(year, 'en')) {
      // `date` is the local calendar date ('YYYY-MM-DD hh:mm:ss'), unlike `start`, which is a UTC instant.
      const date = holiday.date.slice(0, 10)
      if (holiday.type === 'public' && date >= from && date <= to) holidays.push({ date, name: holiday.name })
    }
  }
  return holidays
}

/**
 * Names of the public holidays of a country in [firstDay, firstDay + days), firstDay 'YYYY-MM-DD', by
 * the country's own calendar date, in date order, each once; [] for null or an unknown country.
 */
export function holidayNames(country: string | null, firstDay: string, days: number): string[] {
  const start = parseDay(firstDay, 'firstDay')
  if (days <= 0) return []
  const lastDay = new Date(start + (days - 1) * DAY_MS).toISOString().slice(0, 10)
  return [...new Set(publicHolidays(country, firstDay, lastDay).map((holiday) => holiday.name))]
}
