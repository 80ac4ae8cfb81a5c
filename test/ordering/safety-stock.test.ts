import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { safetyStock, SERVICE_LEVEL_Z } from '../../src/ordering/safety-stock.js'

describe('safetyStock', () => {
  test('is the 95th percentile of a gamma demand less its mean: an exponential demand of mean 10 has it at 10 × ln 20', () => {
    // Shape 1 (standard deviation = mean): the exact percentile is 29.96; Wilson–Hilferty gives 29.69.
    const percentile = 10 + safetyStock(10, 10)
    assert.ok(Math.abs(percentile - 10 * Math.log(20)) < 0.01 * 10 * Math.log(20), `percentile ${percentile}`)
  })

  test('approaches z × σ for a steady seller, and lies above it for a skewed slow mover', () => {
    const steady = safetyStock(1000, 50)
    assert.ok(Math.abs(steady - SERVICE_LEVEL_Z * 50) < 0.02 * SERVICE_LEVEL_Z * 50, `steady ${steady}`)
    // Mean 4 and σ 3 over the horizon (a few sales a week): the normal's 4.9 would under-cover.
    assert.ok(safetyStock(4, 3) > SERVICE_LEVEL_Z * 3 + 0.4, `slow mover ${safetyStock(4, 3)}`)
  })

  test('is 0 without error and z × σ without forecast demand, never negative or not a number', () => {
    assert.equal(safetyStock(12, 0), 0)
    assert.equal(safetyStock(0, 2), SERVICE_LEVEL_Z * 2)
    for (const [demand, spread] of [
      [0.001, 100],
      [1e-9, 1e-9],
      [1e6, 1],
    ] as const) {
      const value = safetyStock(demand, spread)
      assert.ok(Number.isFinite(value) && value >= 0, `${demand}, ${spread}: ${value}`)
    }
  })
})
