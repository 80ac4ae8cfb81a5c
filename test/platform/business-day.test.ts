import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import type { DatabaseHandle } from '../../src/platform/db/connect.js'
import { businessDayAt, DAY_MS } from '../../src/platform/zoned-time.js'
import { openTestDatabase } from '../helpers/context.js'

/**
 * businessDayAt (src/platform/zoned-time.ts) tells the business day the database's business_day() tells:
 * the variance report bounds what a change can reach of its windows with it.
 */

let database: DatabaseHandle
before(async () => {
  database = await openTestDatabase()
})
after(() => database.close())

/** Three days in steps of 75 minutes. */
const STEPS = Math.floor((3 * DAY_MS) / (75 * 60_000))

test('businessDayAt answers what business_day() answers, across zones, cut-offs and clock changes', async () => {
  // Both ends of the world's offsets, a half-hour zone and two with clock changes, every hour and a quarter
  // over three days around each of 2026's European and American spring and autumn changes (5,472 cases).
  const zones = ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kolkata', 'Europe/London', 'America/New_York', 'UTC']
  const cutoffs = ['00:00', '04:00', '23:59', '05:30']
  const starts = ['2026-03-07T00:00:00Z', '2026-03-28T00:00:00Z', '2026-10-24T00:00:00Z', '2026-10-31T00:00:00Z']
  const cases = zones.flatMap((timezone) =>
    cutoffs.flatMap((cutoff) =>
      starts.flatMap((start) => Array.from({ length: STEPS }, (_, step) => ({ at: new Date(Date.parse(start) + step * 75 * 60_000), timezone, cutoff }))),
    ),
  )
  const result = await sql<{ day: string }>`
    SELECT business_day(c.at, c.timezone, c.cutoff)::text AS day
    FROM unnest(${cases.map((entry) => entry.at.toISOString())}::timestamptz[], ${cases.map((entry) => entry.timezone)}::text[],
      ${cases.map((entry) => entry.cutoff)}::text[]) WITH ORDINALITY AS c (at, timezone, cutoff, ord)
    ORDER BY c.ord`.execute(database.db)
  const differing = cases.filter((entry, index) => businessDayAt(entry.at, entry.timezone, entry.cutoff) !== result.rows[index]?.day)
  assert.equal(result.rows.length, 5_472)
  assert.deepEqual(differing, [])
  assert.equal(businessDayAt(new Date(Date.parse('2026-11-28T03:59:00Z')), 'UTC', '04:00'), '2026-11-27')
  assert.equal(businessDayAt(new Date(Date.parse('2026-11-28T03:59:00Z') + DAY_MS), 'UTC', '04:00'), '2026-11-28')
})
