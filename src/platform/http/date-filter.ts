import { isStorableTime } from '../db/database.js'
import { invalidParameter } from '../errors.js'
import { isExistingDate, isInTheFuture } from '../zoned-time.js'
import { DAY_MS } from '../zoned-time.js'

/**
 * An ISO 8601 date or date-time of a list filter; a bare date as an upper bound covers its whole day.
 * An upper bound past the last storable time bounds nothing (nothing happened after it).
 */
export function parseDateFilter(value: string | undefined, field: string, wholeDay: boolean): Date | undefined {
  if (value === undefined) return undefined
  const time = Date.parse(value)
  if (!isStorableTime(time) || !isExistingDate(value.slice(0, 10))) {
    throw invalidParameter(field, value, `${field} must be an ISO 8601 date or date-time in the years 0001 to 9999`)
  }
  const bareDate = /^\d{4}-\d{2}-\d{2}$/.test(value)
  const bound = bareDate && wholeDay ? time + DAY_MS : time + (wholeDay ? 1 : 0)
  return isStorableTime(bound) ? new Date(bound) : undefined
}

/** A list's date_from and date_to as [from, before): date_to before date_from is invalid_parameter. */
export function parseDateRange(query: { date_from?: string; date_to?: string }): { from: Date | undefined; before: Date | undefined } {
  const from = parseDateFilter(query.date_from, 'date_from', false)
  const before = parseDateFilter(query.date_to, 'date_to', true)
  if (from && before && from >= before) throw invalidParameter('date_to', query.date_to, 'date_to is before date_from')
  return { from, before }
}

/**
 * When something a client records happened (a count, a transfer, waste entered after the fact): `value`,
 * default now; in the future (beyond the clock skew allowed) is invalid_parameter.
 */
export function parsePastTime(value: string | undefined, field: string): Date {
  if (value === undefined) return new Date()
  const at = new Date(value)
  if (isInTheFuture(at)) throw invalidParameter(field, value, `${field} is in the future`)
  return at
}
