import assert from 'node:assert/strict'
import { test } from 'node:test'
import { stockAdvice } from '../../src/analytics/forecast/forecast.service.js'

/** Daily demands in units of 10⁻⁶, as the endpoint holds a stored forecast's 6 decimals. */
const micro = (...values: number[]) => values.map((value) => BigInt(Math.round(value * 1_000_000)))

test('stock advice: cover, already below the reorder point, not covering the first day, and stock below zero counted as 0', () => {
  const bottle = { unit: 'bottle' as const }
  assert.equal(
    stockAdvice({ ...bottle, quantity: 3, reorder_point: 4 }, micro(1, 1, 1, 1), '2026-11-26'),
    'Stock covers 3 days at the forecast rate (through Sat 28 Nov); it is already below the reorder point of 4 bottle: order now.',
  )
  assert.equal(
    stockAdvice({ ...bottle, quantity: 0.5, reorder_point: 0 }, micro(0.123456, 1), '2026-11-26'),
    'Stock covers 1 day at the forecast rate (through Thu 26 Nov); order by Fri 27 Nov, when it is forecast to fall below the reorder point of 0 bottle.',
  )
  assert.equal(
    stockAdvice({ ...bottle, quantity: -2, reorder_point: 1 }, micro(0.00005, 0), '2026-11-26'),
    'Stock of 0 bottle does not cover the 0.0001 bottle forecast for Thu 26 Nov; it is already below the reorder point of 1 bottle: order now.',
  )
  assert.equal(
    stockAdvice({ ...bottle, quantity: 10, reorder_point: 2 }, micro(2.5, 2.5, 2.5), '2026-11-26'),
    'Stock covers at least 3 days at the forecast rate (through Sat 28 Nov); it stays above the reorder point of 2 bottle for the next 3 days, so no order is needed yet.',
  )
})
