import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { recentLevelBreak } from '../../src/analytics/forecast/level-break.js'
import { seededRandom } from '../../src/pos/simulation/bar-data.js'

/** 16 weekly means: `before` until `breakWeeks` weeks from the end, `after` from there. */
function stepped(before: number, after: number, breakWeeks: number): number[] {
  return Array.from({ length: 16 }, (_, week) => (week < 16 - breakWeeks ? before : after))
}

describe('recentLevelBreak', () => {
  test('finds a clear step of the last 1 to 4 weeks, counting only weeks after it; an older one is left to the smoothing', () => {
    for (const [before, after] of [
      [5, 11],
      [20, 8],
    ] as const) {
      for (const weeksSince of [1, 2, 3, 4]) {
        const found = recentLevelBreak(stepped(before, after, weeksSince))
        assert.ok(found !== null && found <= weeksSince, `${before} → ${after}, ${weeksSince} weeks ago: ${found}`)
      }
      // Measured: from 5 weeks on, the earlier weeks' line already bends towards the new level.
      for (const weeksSince of [5, 8, 13]) assert.equal(recentLevelBreak(stepped(before, after, weeksSince)), null)
    }
    assert.equal(recentLevelBreak(stepped(5, 11, 1)), 1)
  })

  test("does not read a steady trend as a break: the new weeks lie on the earlier weeks' line", () => {
    assert.equal(recentLevelBreak(Array.from({ length: 16 }, (_, week) => 10 + 2 * week)), null)
    assert.equal(recentLevelBreak(Array.from({ length: 16 }, (_, week) => 40 - 2 * week)), null)
  })

  test("needs a change beyond Poisson's noise on a low-volume item, even when its weeks never varied", () => {
    // 0.5 a day is 3.5 units a week: a last week at 1 a day is 1.7 standard errors away, not 5.
    assert.equal(recentLevelBreak(stepped(0.5, 1, 1)), null)
    assert.equal(recentLevelBreak(stepped(0.5, 4, 1)), 1)
  })

  test('finds no break in 300 stationary noisy series', () => {
    const random = seededRandom(7)
    let breaks = 0
    for (let series = 0; series < 300; series++) {
      const level = 2 + 60 * random()
      // A weekly mean of a noisy daily demand: about 15 % spread.
      const weeks = Array.from({ length: 16 }, () => level * (1 + 0.15 * (random() + random() + random() - 1.5) * 2))
      if (recentLevelBreak(weeks) !== null) breaks++
    }
    assert.equal(breaks, 0)
  })
})
