import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { reportPeriod } from '../../src/analytics/report-period.js'
import { isAppError } from '../../src/platform/errors.js'

function codeOf(run: () => unknown): [string, number] | undefined {
  try {
    run()
  } catch (error) {
    return isAppError(error) ? [error.code, error.statusCode] : undefined
  }
  return undefined
}

describe('report periods', () => {
  test('default to the 30 days before today and take dates or ISO timestamps', () => {
    const now = new Date('2026-11-22T10:00:00.000Z')
    assert.deepEqual(reportPeriod({}, now), { from: '2026-10-23', to: '2026-11-22' })
    assert.deepEqual(reportPeriod({ date_from: '2026-11-01T08:00:00Z', date_to: '2026-11-07' }, now), { from: '2026-11-01', to: '2026-11-07' })
  })

  test('refuse a start after the end and a period over 366 days with invalid_date_range', () => {
    assert.deepEqual(
      codeOf(() => reportPeriod({ date_from: '2026-11-08', date_to: '2026-11-07' })),
      ['invalid_date_range', 400],
    )
    assert.deepEqual(
      codeOf(() => reportPeriod({ date_from: '2025-01-01', date_to: '2026-01-02' })),
      ['invalid_date_range', 400],
    )
    assert.deepEqual(
      codeOf(() => reportPeriod({ date_from: '2026-02-30' })),
      ['invalid_parameter', 400],
    )
  })
})
