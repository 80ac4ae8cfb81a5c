import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { parseTimestamptz } from '../../src/platform/db/timestamps.js'

// This file does not import connect.ts, so this is still pg's own parser (postgres-date).
const driverParse = pg.types.getTypeParser(1184) as (text: string) => Date | number | null

/** A deterministic stream of integers in [0, bound). */
function random(seed: number): (bound: number) => number {
  let state = seed >>> 0
  return (bound) => {
    state = (state * 1664525 + 1013904223) >>> 0
    return Math.floor((state / 2 ** 32) * bound)
  }
}

const two = (value: number) => String(value).padStart(2, '0')

function sameAsDriver(text: string): void {
  const expected = driverParse(text)
  const actual = parseTimestamptz(text)
  assert.equal(actual instanceof Date ? actual.getTime() : actual, expected instanceof Date ? expected.getTime() : expected, text)
}

test('timestamptz text in a UTC session reads as pg’s own parser reads it, fraction by fraction', () => {
  const next = random(24)
  for (let index = 0; index < 50_000; index++) {
    const digits = next(7)
    const fraction = digits === 0 ? '' : `.${String(next(10 ** digits)).padStart(digits, '0')}`
    const day = `${1000 + next(9000)}-${two(1 + next(12))}-${two(1 + next(31))}`
    sameAsDriver(`${day} ${two(next(24))}:${two(next(60))}:${two(next(60))}${fraction}+00`)
  }
})

test('every other form goes to pg’s own parser and reads the same', () => {
  for (const text of [
    '2026-11-27 17:14:05.123456+05:30',
    '2026-11-27 17:14:05-08',
    '2026-11-27 17:14:05.5+00:00',
    '0099-01-01 00:00:00+00',
    '0001-01-01 00:00:00+00 BC',
    '12026-01-01 00:00:00+00',
    'infinity',
    '-infinity',
    '2026-02-30 10:00:00+00',
    '2026-11-27 17:14:05.+00',
  ]) {
    sameAsDriver(text)
  }
})

test('timestamps the database writes read the same (PostgreSQL only)', { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL' }, async () => {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await client.connect()
  try {
    const { rows } = await client.query<{ text: string }>(
      `SELECT (timestamptz '1970-01-01 00:00:00+00' + (random() * interval '200 years') + (n * interval '1 microsecond'))::text AS text FROM generate_series(1, 20000) AS n`,
    )
    for (const { text } of rows) sameAsDriver(text)
  } finally {
    await client.end()
  }
})
