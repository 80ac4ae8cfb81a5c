/** Milliseconds in a day of 24 hours (a UTC day; a zoned day can be an hour shorter or longer). */
export const DAY_MS = 86_400_000

/** A wall-clock time with no zone: what a clock on the wall of some place shows. */
export interface WallTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  millisecond: number
}

const formats = new Map<string, Intl.DateTimeFormat>()

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formats.set(timeZone, format)
  }
  return format
}

/** How far `timeZone`'s clocks are ahead of UTC at `instant`, in milliseconds. */
function offsetAt(timeZone: string, instant: number): number {
  const parts: Record<string, number> = {}
  for (const part of formatIn(timeZone).formatToParts(instant)) parts[part.type] = Number(part.value)
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute, parts.second)
  return wall - (instant - (((instant % 1000) + 1000) % 1000))
}

/** How far ahead of this server's clock a client's timestamp may be: its clock may run a little fast. */
const CLOCK_SKEW_MS = 5 * 60_000

/** Whether a moment a client sent lies in the future, beyond the clock skew allowed. */
export function isInTheFuture(at: Date, now = Date.now()): boolean {
  return at.getTime() > now + CLOCK_SKEW_MS
}

/** Whether `date`, written YYYY-MM-DD, is a day of the calendar (2026-02-30 and 2026-13-01 are not). */
export function isExistingDate(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false
  const time = Date.parse(`${date}T00:00:00Z`)
  // A month or day out of range is NaN or rolls over; toISOString of NaN would throw, so check it first.
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === date
}

/** The wall time's fields as a UTC timestamp, or undefined when the date does not exist (2026-02-30). */
export function wallTimeAsUtc(wall: WallTime): number | undefined {
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond))
  const exists =
    date.getUTCFullYear() === wall.year &&
    date.getUTCMonth() === wall.month - 1 &&
    date.getUTCDate() === wall.day &&
    date.getUTCHours() === wall.hour &&
    date.getUTCMinutes() === wall.minute &&
    date.getUTCSeconds() === wall.second
  return exists ? date.getTime() : undefined
}

/**
 * The moment when clocks in `timeZone` (IANA) show `utcWall` (a wall time written as a UTC timestamp).
 * As Temporal's "compatible" choice: a wall time shown twice (clocks set back) is the earlier moment; one
 * never shown (clocks set forward) is read with the offset before the change, so it lands after it.
 */
export function zonedWallTimeToDate(utcWall: number, timeZone: string): Date {
  // Zones change offset at most once in a day around the wall time.
  const before = utcWall - offsetAt(timeZone, utcWall - DAY_MS)
  const after = utcWall - offsetAt(timeZone, utcWall + DAY_MS)
  const shown = [before, after].filter((moment) => moment + offsetAt(timeZone, moment) === utcWall)
  return new Date(shown.length > 0 ? Math.min(...shown) : before)
}

/**
 * The business day (YYYY-MM-DD) `instant` falls on at a place whose clocks show `timeZone` and whose day
 * ends at `cutoff` (HH:MM local): its wall time less the cut-off, as the database's business_day() has it.
 */
export function businessDayAt(instant: Date, timeZone: string, cutoff: string): string {
  const [hours, minutes] = cutoff.split(':').map(Number) as [number, number]
  const wall = instant.getTime() + offsetAt(timeZone, instant.getTime())
  return new Date(wall - (hours * 60 + minutes) * 60_000).toISOString().slice(0, 10)
}
