import { isExistingDate } from '../platform/zoned-time.js'
import { sql } from 'kysely'
import type { Executor, Tenant } from '../platform/db/database.js'
import { invalidParameter } from '../platform/errors.js'
import { allLocations } from '../locations/index.js'
import { analyticsErrors } from './analytics.errors.js'
import { DAY_MS } from '../platform/zoned-time.js'

/**
 * A report's period: two business dates, both inclusive. Each location turns them into moments with its
 * own time zone and cut-off (locationBounds), so a bar in New York and one in Berlin each report their
 * own business days.
 */
export interface ReportPeriod {
  /** YYYY-MM-DD */
  from: string
  /** YYYY-MM-DD */
  to: string
}

/** Percentages of every report are answered with 2 decimals (15.47 means 15.47 %). */
export const PERCENT_DECIMALS = 2
export const DEFAULT_PERIOD_DAYS = 30
export const MAX_PERIOD_DAYS = 366
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

/**
 * The range of report dates. A report reaches a period back (trends) and a day plus a time zone forward
 * (business days): kept well inside the years 0001 to 9999 that timestamps can hold.
 */
const EARLIEST_REPORT_DATE = '1900-01-01'
const LATEST_REPORT_DATE = '9998-12-31'

/**
 * The date a query value names: `YYYY-MM-DD` as is, an ISO timestamp by its own date; a date that does
 * not exist or lies outside 1900-01-01 to 9998-12-31 is refused.
 */
export function parseReportDate(value: string, parameter: string): string {
  const date = TIMESTAMP.exec(value)?.[1] ?? value
  const valid = isExistingDate(date) && !Number.isNaN(Date.parse(value))
  if (!valid) throw invalidParameter(parameter, value, `${parameter} must be a date such as 2026-11-01 (or an ISO 8601 timestamp)`)
  if (date < EARLIEST_REPORT_DATE || date > LATEST_REPORT_DATE) {
    throw invalidParameter(parameter, value, `${parameter} must be a date from ${EARLIEST_REPORT_DATE} to ${LATEST_REPORT_DATE}`)
  }
  return date
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS)
}

export function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
}

/**
 * The period of a report query: date_to defaults to today (UTC), date_from to 30 days before date_to.
 * Throws invalid_parameter for a date that does not parse, invalid_date_range when date_from is after
 * date_to or the period spans more than 366 days.
 */
export function reportPeriod(query: { date_from?: string; date_to?: string }, now = new Date()): ReportPeriod {
  const to = query.date_to === undefined ? now.toISOString().slice(0, 10) : parseReportDate(query.date_to, 'date_to')
  const from = query.date_from === undefined ? shiftDate(to, -DEFAULT_PERIOD_DAYS) : parseReportDate(query.date_from, 'date_from')
  if (from > to) throw analyticsErrors.invalidDateRange(`date_from ${from} is after date_to ${to}`, { date_from: from, date_to: to })
  const days = daysBetween(from, to) + 1
  if (days > MAX_PERIOD_DAYS) {
    throw analyticsErrors.invalidDateRange(`The period spans ${days} days; at most ${MAX_PERIOD_DAYS}`, { date_from: from, date_to: to })
  }
  return { from, to }
}

/** The period before this one, of the same length (for trends). */
export function previousPeriod(period: ReportPeriod): ReportPeriod {
  const days = daysBetween(period.from, period.to) + 1
  return { from: shiftDate(period.from, -days), to: shiftDate(period.from, -1) }
}

/** `2026-10-23/2026-11-22`, the spec's period string. */
export function periodLabel(period: ReportPeriod): string {
  return `${period.from}/${period.to}`
}

export interface LocationBounds {
  location: string
  timezone: string
  cutoff: string
  /** Start of the first business day. */
  start: Date
  /** End (exclusive) of the last business day. */
  end: Date
}

/** Each of the tenant's locations' moments for the period: its business days in its own time zone and cut-off. */
export async function locationBounds(db: Executor, tenant: Tenant, period: ReportPeriod): Promise<Map<string, LocationBounds>> {
  const locations = await allLocations(db, tenant)
  if (locations.length === 0) return new Map()
  const result = await sql<LocationBounds>`
    SELECT l.location, l.timezone, l.cutoff,
      ((${period.from}::date + l.cutoff::interval) AT TIME ZONE l.timezone) AS start,
      ((${period.to}::date + 1 + l.cutoff::interval) AT TIME ZONE l.timezone) AS end
    FROM unnest(${locations.map((l) => l.id)}::text[], ${locations.map((l) => l.timezone)}::text[],
      ${locations.map((l) => l.business_day_cutoff)}::text[]) AS l (location, timezone, cutoff)`.execute(db)
  return new Map(result.rows.map((row) => [row.location, row]))
}

/** A location's clock: its time zone and business-day cut-off. */
export interface LocationClock {
  timezone: string
  cutoff: string
}

export interface BusinessDaySplit {
  /** Business day of the span's start, and the moment it ends. */
  firstDay: string
  firstDayEnd: Date
  /** Business day of the span's end, and the moment it starts. */
  lastDay: string
  lastDayStart: Date
}

/** The business days two moments fall on at a location, with the day boundaries next to them, per span in order. */
export async function businessDaySplits(db: Executor, spans: { from: Date; to: Date; clock: LocationClock }[]): Promise<BusinessDaySplit[]> {
  if (spans.length === 0) return []
  const result = await sql<BusinessDaySplit>`
    SELECT d.first_day::text AS "firstDay", d.last_day::text AS "lastDay",
      ((d.first_day + 1 + s.cutoff::interval) AT TIME ZONE s.timezone) AS "firstDayEnd",
      ((d.last_day + s.cutoff::interval) AT TIME ZONE s.timezone) AS "lastDayStart"
    FROM unnest(${spans.map((_, index) => index)}::int[], ${spans.map((span) => span.from.toISOString())}::timestamptz[],
      ${spans.map((span) => span.to.toISOString())}::timestamptz[], ${spans.map((span) => span.clock.timezone)}::text[],
      ${spans.map((span) => span.clock.cutoff)}::text[]) AS s (ord, from_at, to_at, timezone, cutoff)
    CROSS JOIN LATERAL (SELECT business_day(s.from_at, s.timezone, s.cutoff) AS first_day, business_day(s.to_at, s.timezone, s.cutoff) AS last_day) d
    ORDER BY s.ord`.execute(db)
  return result.rows
}
