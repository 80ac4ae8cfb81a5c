import Holidays from 'date-holidays'

const DAY_MS = 86_400_000

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

/**
 * Names of public holidays (type 'public' in date-holidays, English names where the data has them) for
 * an ISO 3166 alpha-2 country in [firstDay, firstDay + days), firstDay 'YYYY-MM-DD', by the country's
 * own calendar date, in date order; [] for null or an unknown country.
 */
export function holidayNames(country: string | null, firstDay: string, days: number): string[] {
  if (country === null || days <= 0) return []
  const start = Date.parse(`${firstDay}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(firstDay) || Number.isNaN(start)) throw new RangeError(`firstDay must be YYYY-MM-DD, got ${firstDay}`)
  const lastDay = new Date(start + (days - 1) * DAY_MS).toISOString().slice(0, 10)
  const calendar = calendarOf(country)
  const names: string[] = []
  for (let year = Number(firstDay.slice(0, 4)); year <= Number(lastDay.slice(0, 4)); year++) {
    for (const holiday of calendar.getHolidays(year, 'en')) {
      // `date` is the local calendar date ('YYYY-MM-DD hh:mm:ss'), unlike `start`, which is a UTC instant.
      const day = holiday.date.slice(0, 10)
      if (holiday.type === 'public' && day >= firstDay && day <= lastDay && !names.includes(holiday.name)) names.push(holiday.name)
    }
  }
  return names
}
