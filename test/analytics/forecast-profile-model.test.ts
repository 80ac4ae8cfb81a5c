import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { initForecasting } from '../../src/analytics/forecast/index.js'
import { clipSpikes, forecastProfileEts, weekdayProfile } from '../../src/analytics/forecast/profile-ets.model.js'
import { seededRandom } from '../../src/pos/simulation/bar-data.js'

const BAR_WEEK = [10, 6, 7, 8, 12, 19, 21]

/** `days` of demand: `rateOf(day)` plus uniform noise of ±`noise`, from a fixed seed. */
function series(days: number, rateOf: (day: number) => number, noise = 0, seed = 11): number[] {
  const random = seededRandom(seed)
  return Array.from({ length: days }, (_, day) => Math.max(0, rateOf(day) + noise * (2 * random() - 1)))
}

/** Each weekday's mean ÷ the mean of the weekday means, unshrunk. */
function rawFactors(values: readonly number[]): number[] {
  const means = Array.from({ length: 7 }, (_, weekday) => {
    const days = values.filter((_, day) => day % 7 === weekday)
    return days.reduce((sum, value) => sum + value, 0) / days.length
  })
  const overall = means.reduce((sum, value) => sum + value, 0) / 7
  return means.map((value) => value / overall)
}

before(() => initForecasting())

describe('weekdayProfile', () => {
  test("gives each weekday's demand relative to the average weekday, the factors averaging 1", () => {
    const profile = weekdayProfile(series(112, (day) => BAR_WEEK[day % 7] ?? 0))
    assert.ok(profile)
    profile.forEach((factor, weekday) => assert.ok(Math.abs(factor - (BAR_WEEK[weekday] ?? 0) / 11.857142857142858) < 1e-9, `${weekday}: ${factor}`))
  })

  test('shrinks the week a flat noisy series draws by chance to flat, and keeps a strong week nearly whole', () => {
    const flatSeries = series(112, () => 20, 6)
    // Measured: the raw factors of this flat series lie 0.936 to 1.048; the weight their noise leaves is 0.
    assert.ok(rawFactors(flatSeries).some((factor) => Math.abs(factor - 1) > 0.05))
    assert.deepEqual(weekdayProfile(flatSeries), [1, 1, 1, 1, 1, 1, 1])
    // The bar's week under the same noise keeps 97.65 % of each factor's distance from 1 (measured).
    const weeklySeries = series(112, (day) => BAR_WEEK[day % 7] ?? 0, 6)
    const raw = rawFactors(weeklySeries)
    weekdayProfile(weeklySeries)?.forEach((factor, weekday) => {
      const kept = (factor - 1) / ((raw[weekday] ?? 0) - 1)
      assert.ok(kept > 0.95 && kept <= 1, `${weekday}: ${kept}`)
    })
  })

  test('is null when nothing sold', () => {
    assert.equal(weekdayProfile(new Array<number>(28).fill(0)), null)
  })
})

describe('clipSpikes', () => {
  test('cuts a one-off spike down to its expected demand plus 3 standard deviations and leaves every other day', () => {
    const history = series(112, (day) => BAR_WEEK[day % 7] ?? 0, 1)
    const spiked = history.map((value, day) => (day === 100 ? value * 5 : value))
    const clipped = clipSpikes(spiked, weekdayProfile(spiked) ?? [])
    // Day 100 is weekday 2 (7 a day; 8.7 with the spike in its weekday's mean): measured bound 8.7 + 3 × √8.7
    // = 17.9, against the spike's 36.0 and the day's 7.2 before it.
    assert.ok((clipped[100] ?? 0) < 20 && (clipped[100] ?? 0) > (history[100] ?? 0), `clipped to ${clipped[100]}`)
    assert.deepEqual(
      clipped.filter((_, day) => day !== 100),
      history.filter((_, day) => day !== 100),
    )
  })

  test('keeps ordinary sales of a low-volume item whose usual deviation is 0', () => {
    const sparse = series(112, (day) => (day % 5 === 0 ? 2 : 0))
    assert.deepEqual(clipSpikes(sparse, weekdayProfile(sparse) ?? []), sparse)
  })
})

describe('forecastProfileEts', () => {
  test('follows a trend with a multiplicative week: each day within 5 % of the continued series', () => {
    const rateOf = (day: number) => ((10 + day * 0.2) * (BAR_WEEK[day % 7] ?? 0)) / 12
    const forecast = forecastProfileEts(series(112, rateOf), 14)
    forecast.forEach((value, day) => assert.ok(Math.abs(value / rateOf(112 + day) - 1) < 0.05, `day ${day}: ${value} vs ${rateOf(112 + day)}`))
  })

  test('fits the level on weekly means from 9 full weeks: each forecast week holds one level; shorter histories move day by day', () => {
    const rateOf = (day: number) => ((10 + day * 0.2) * (BAR_WEEK[day % 7] ?? 0)) / 12
    /** Forecast ÷ each day's weekday factor: the level the model forecast for that day. */
    const levels = (days: number) => {
      const history = series(days, rateOf)
      const profile = weekdayProfile(history) ?? []
      return forecastProfileEts(history, 14).map((value, day) => value / (profile[(days + day) % 7] ?? 1))
    }
    const weekly = levels(63)
    const sameLevel = (values: number[]) => values.every((value) => Math.abs(value - (values[0] ?? 0)) < 1e-9)
    assert.ok(sameLevel(weekly.slice(0, 7)) && sameLevel(weekly.slice(7, 14)), `${weekly}`)
    // The trend carries on from one week to the next: 0.2 a day is 1.4 a week.
    assert.ok((weekly[7] ?? 0) > (weekly[0] ?? 0), `${weekly}`)
    const daily = levels(62)
    assert.ok((daily[1] ?? 0) > (daily[0] ?? 0), `${daily}`)
  })

  test('follows a clear step at once: demand doubled a week ago is forecast at the new level', () => {
    const rateOf = (day: number) => (BAR_WEEK[day % 7] ?? 0) * (day >= 105 ? 2 : 1)
    // Measured without the break rule: the level fitted on the 16 weekly means alone forecast 0.53 (no
    // noise) and 0.71 (this noise) of the new level.
    for (const noise of [0, 1]) {
      const forecast = forecastProfileEts(series(112, rateOf, noise, 12), 14)
      forecast.forEach((value, day) => assert.ok(Math.abs(value / rateOf(105 + ((112 + day) % 7)) - 1) < 0.1, `noise ${noise}, day ${day}: ${value}`))
    }
  })

  test('forecasts next to nothing for a weekday that never sells (its factor shrunk from 0 by the noise), 0 with no noise', () => {
    const closedMondays = series(112, (day) => (day % 7 === 1 ? 0 : (BAR_WEEK[day % 7] ?? 0)), 1).map((value, day) => (day % 7 === 1 ? 0 : value))
    const forecast = forecastProfileEts(closedMondays, 14)
    const open = forecast.filter((_, day) => (112 + day) % 7 !== 1)
    assert.ok(open.every((value) => Number.isFinite(value) && value > 0))
    const openMean = open.reduce((sum, value) => sum + value, 0) / open.length
    // Measured: 0.0033 units a Monday against about 13 on an open day.
    forecast.filter((_, day) => (112 + day) % 7 === 1).forEach((value) => assert.ok(value < 0.01 * openMean, `${value}`))
    const exact = series(112, (day) => (day % 7 === 1 ? 0 : (BAR_WEEK[day % 7] ?? 0)))
    forecastProfileEts(exact, 14).forEach((value, day) => assert.equal(value === 0, (112 + day) % 7 === 1, `day ${day}: ${value}`))
  })

  test('forecasts 0 for an item that sold nothing', () => {
    assert.deepEqual(forecastProfileEts(new Array<number>(28).fill(0), 3), [0, 0, 0])
  })
})
