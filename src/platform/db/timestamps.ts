import pg from 'pg'

const TIMESTAMPTZ_OID = 1184

/** pg's own parser (postgres-date): three regular expressions and a Date per value. */
const driverParse = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (text: string) => Date

const ZERO = 48

/** The number written by the digits of `text` from `start` to `end` (all digits: checked by the caller's shape test). */
function digitsAt(text: string, start: number, end: number): number {
  let value = 0
  for (let index = start; index < end; index++) value = value * 10 + text.charCodeAt(index) - ZERO
  return value
}

/** Whether every character from `start` to `end` is a digit. */
function allDigits(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index) - ZERO
    if (code < 0 || code > 9) return false
  }
  return true
}

/**
 * A timestamptz as PostgreSQL writes it in a UTC session (`2026-11-27 17:14:05.123456+00`, years 1000 to
 * 9999), read without pg's regular expressions: a list of 50 items parses 150 of them per request. Any
 * other form (another offset, BC, infinity, a short year) goes to pg's own parser. The Date is the one
 * pg's parser makes: its milliseconds are the fraction's first three digits (pg multiplies the fraction by
 * 1000 and Date.UTC truncates; for six digits or fewer both give the same integer).
 */
export function parseTimestamptz(text: string): Date {
  const length = text.length
  const fractionEnd = length - 3
  const hasFraction = length > 22 && text.charCodeAt(19) === 46 // '.'
  if (
    (length !== 22 && !(hasFraction && length <= 29)) ||
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58 ||
    !text.endsWith('+00') ||
    text.charCodeAt(0) === ZERO ||
    !allDigits(text, 0, 4) ||
    !allDigits(text, 5, 7) ||
    !allDigits(text, 8, 10) ||
    !allDigits(text, 11, 13) ||
    !allDigits(text, 14, 16) ||
    !allDigits(text, 17, 19) ||
    (hasFraction && !allDigits(text, 20, fractionEnd))
  ) {
    return driverParse(text)
  }
  let milliseconds = 0
  if (hasFraction) {
    const digits = Math.min(3, fractionEnd - 20)
    milliseconds = digitsAt(text, 20, 20 + digits) * 10 ** (3 - digits)
  }
  return new Date(
    Date.UTC(digitsAt(text, 0, 4), digitsAt(text, 5, 7) - 1, digitsAt(text, 8, 10), digitsAt(text, 11, 13), digitsAt(text, 14, 16), digitsAt(text, 17, 19), milliseconds),
  )
}

/** Makes pg read every timestamptz with parseTimestamptz (process-wide, like pg's other type parsers). */
export function useFastTimestampParser(): void {
  pg.types.setTypeParser(TIMESTAMPTZ_OID, parseTimestamptz)
}
