import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import {
  applyHolidayFactors,
  FORECAST_HORIZON_DAYS,
  forecastDemand,
  holidayFactors,
  holidayNames,
  initForecasting,
  locationAdjustments,
  MIN_HISTORY_DAYS,
  NO_LOCATION_ADJUSTMENTS,
  pastHolidays,
  totalErrorStdDev,
} from '../../src/analytics/forecast/index.js'
import { seededRandom } from '../../src/pos/simulation/bar-data.js'

const BAR_WEEK = [10, 6, 7, 8, 12, 19, 21]

/** `days` of demand: `rateOf(day)` plus uniform noise of ±`noise`, from a fixed seed. */
function series(days: number, rateOf: (day: number) => number, noise = 0, seed = 7): number[] {
  const random = seededRandom(seed)
  return Array.from({ length: days }, (_, day) => Math.max(0, rateOf(day) + noise * (2 * random() - 1)))
}

before(() => initForecasting())

describe('forecastDemand', () => {
  test('forecasts a clear weekly series with its weekly shape and reports weekly seasonality', () => {
    const history = series(112, (day) => BAR_WEEK[day % 7] ?? 0, 1)
    const forecast = forecastDemand(history)
    assert.equal(forecast.daily.length, FORECAST_HORIZON_DAYS)
    assert.equal(forecast.seasonality, 'weekly')
    // Day 112 is weekday 0 of the pattern: every forecast day within 1.5 units of its weekday's rate.
    forecast.daily.forEach((value, day) => assert.ok(Math.abs(value - (BAR_WEEK[(112 + day) % 7] ?? 0)) < 1.5, `day ${day}: ${value}`))
  })

  test('reports a flat noisy series as without season and stable', () => {
    const forecast = forecastDemand(series(112, () => 20, 6))
    assert.equal(forecast.seasonality, 'none')
    assert.equal(forecast.trend, 'stable')
  })

  test('reports a rising series as increasing and a falling one as decreasing', () => {
    const rising = forecastDemand(series(112, (day) => (10 + day * 0.2) * ((BAR_WEEK[day % 7] ?? 0) / 12), 1))
    const falling = forecastDemand(series(112, (day) => (40 - day * 0.2) * ((BAR_WEEK[day % 7] ?? 0) / 12), 1))
    assert.equal(rising.trend, 'increasing')
    assert.equal(falling.trend, 'decreasing')
  })

  test('never forecasts negative demand, even for a series falling to zero', () => {
    const forecast = forecastDemand(series(60, (day) => Math.max(0, 30 - day), 2))
    assert.ok(forecast.daily.every((value) => value >= 0))
  })

  test('throws for a series shorter than 14 days and accepts 14 days without a back-test', () => {
    assert.throws(() => forecastDemand(series(MIN_HISTORY_DAYS - 1, () => 5)), RangeError)
    const shortest = forecastDemand(series(MIN_HISTORY_DAYS, (day) => BAR_WEEK[day % 7] ?? 0))
    assert.equal(shortest.backtestWape, null)
    assert.equal(shortest.daily.length, FORECAST_HORIZON_DAYS)
  })

  test('back-tests a perfectly periodic series with no error, by every model that can repeat a week', () => {
    const periodic = series(112, (day) => BAR_WEEK[day % 7] ?? 0)
    // The weekday profile is exact and the level constant: measured 1.8e-16 WAPE (error spread 2.3e-15 units).
    const profile = forecastDemand(periodic)
    assert.equal(profile.model, 'profile_ets')
    assert.ok(profile.backtestWape !== null && profile.backtestWape < 1e-9, `WAPE ${profile.backtestWape}`)
    assert.ok(profile.dailyErrorStdDev < 1e-9, `error spread ${profile.dailyErrorStdDev}`)
    // Seasonal naive repeats the week exactly, so it wins a back-test against the mean with 0 error.
    const chosen = forecastDemand(periodic, { models: ['mean', 'seasonal_naive'] })
    assert.equal(chosen.model, 'seasonal_naive')
    assert.equal(chosen.backtestWape, 0)
    assert.equal(chosen.dailyErrorStdDev, 0)
    // MSTL over ETS measured 1.94e-7 (error spread 3.0e-6 units) on this series.
    const mstl = forecastDemand(periodic, { models: ['mstl_ets'] })
    assert.ok(mstl.backtestWape !== null && mstl.backtestWape < 1e-6, `WAPE ${mstl.backtestWape}`)
    assert.ok(mstl.dailyErrorStdDev < 1e-5, `error spread ${mstl.dailyErrorStdDev}`)
  })

  test('gives a null WAPE when the held-out days sold nothing', () => {
    // The back-test's 4 origins a week apart hold out the last 14 + 3 × 7 = 35 days.
    const forecast = forecastDemand([...series(60, () => 3, 1), ...new Array<number>(35).fill(0)])
    assert.equal(forecast.backtestWape, null)
  })
})

describe('holidayNames', () => {
  test('lists Christmas Day for the US from 20 December for 10 days', () => {
    assert.ok(holidayNames('US', '2026-12-20', 10).includes('Christmas Day'))
  })

  test('lists nothing without a country or for an unknown one', () => {
    assert.deepEqual(holidayNames(null, '2026-12-20', 10), [])
    assert.deepEqual(holidayNames('XX', '2026-12-20', 10), [])
  })
})

describe('holidayFactors', () => {
  // Through Fri 19 Dec 2025 in the US: Thanksgiving 2024-11-28 and 2025-11-27 are inside the two years.
  const occurrences = pastHolidays('US', '2025-12-19').filter((holiday) => holiday.name === 'Thanksgiving Day')
  const withThanksgiving = (onHoliday: number[]) => {
    const sales = new Map(occurrences.map((occurrence, index) => [occurrence.date, onHoliday[index] ?? 0]))
    return holidayFactors(occurrences, (day) => sales.get(day) ?? 10).get('Thanksgiving Day')
  }

  test('reads the occurrences of the last two years, each with the same weekday 1 and 2 weeks either side', () => {
    assert.deepEqual(
      occurrences.map((occurrence) => [occurrence.date, occurrence.references]),
      [
        ['2024-11-28', ['2024-11-14', '2024-11-21', '2024-12-05', '2024-12-12']],
        ['2025-11-27', ['2025-11-13', '2025-11-20', '2025-12-04', '2025-12-11']],
      ],
    )
  })

  test('0 when closed on every occurrence; the mean ratio shrunk toward 1 when they agree; none when they disagree or are near usual', () => {
    assert.equal(withThanksgiving([0, 0]), 0)
    // Ratios 2 and 1.6: 1 + 0.8 × 2 / 3.
    assert.equal(withThanksgiving([20, 16])?.toFixed(4), '1.5333')
    assert.equal(withThanksgiving([0, 16]), undefined)
    assert.equal(withThanksgiving([5, 15]), undefined)
    assert.equal(withThanksgiving([10.5, 10.5]), undefined)
  })

  test('one occurrence is not enough, nor one before the location sold anything', () => {
    // Nothing sold before 2025: the first Thanksgiving has no usual level; the second, closed, alone is too thin.
    const factors = holidayFactors(occurrences, (day) => (day < '2025-01-01' || day === '2025-11-27' ? 0 : 10))
    assert.equal(factors.get('Thanksgiving Day'), undefined)
  })

  test('scales only the days that are a holiday with a factor, and lists them', () => {
    const { daily, effects } = applyHolidayFactors([4, 4, 4, 4, 4, 4, 4, 4], '2026-11-24', 'US', new Map([['Thanksgiving Day', 0]]))
    assert.deepEqual(daily, [4, 4, 0, 4, 4, 4, 4, 4])
    assert.deepEqual(effects, [{ date: '2026-11-26', holiday: 'Thanksgiving Day', factor: 0 }])
  })
})

/** Every number a stored forecast keeps is finite and not negative, with 30 days forecast. */
function assertUsable(forecast: ReturnType<typeof forecastDemand>, label: string) {
  assert.equal(forecast.daily.length, FORECAST_HORIZON_DAYS, label)
  for (const value of [...forecast.daily, forecast.dailyErrorStdDev, forecast.horizonErrorStdDev]) {
    assert.ok(Number.isFinite(value) && value >= 0, `${label}: ${value}`)
  }
  assert.ok(forecast.backtestWape === null || Number.isFinite(forecast.backtestWape), label)
}

describe('forecastDemand on bad input', () => {
  test('forecasts through closed days: gaps of zeros, a closed weekday, a closed fortnight at the end', () => {
    const week = series(147, (day) => BAR_WEEK[day % 7] ?? 0, 1)
    const gaps = week.map((value, day) => (day % 29 < 3 ? 0 : value))
    const closedMondays = week.map((value, day) => (day % 7 === 1 ? 0 : value))
    const closedAtEnd = [...week.slice(0, 133), ...new Array<number>(14).fill(0)]
    for (const [label, history] of [
      ['gaps', gaps],
      ['closed Mondays', closedMondays],
      ['closed at the end', closedAtEnd],
    ] as const) {
      assertUsable(forecastDemand([...history]), label)
    }
    // A weekday that never sells is forecast to sell next to nothing (its factor shrunk towards 1 by a hair).
    const mondays = forecastDemand(closedMondays).daily.filter((_, day) => (147 + day) % 7 === 1)
    assert.ok(
      mondays.every((value) => value < 0.05),
      `Mondays ${mondays.join(', ')}`,
    )
  })

  test('forecasts 0 with no error for an item that never sold', () => {
    for (const days of [MIN_HISTORY_DAYS, 60, 147]) {
      const forecast = forecastDemand(new Array<number>(days).fill(0))
      assertUsable(forecast, `${days} days`)
      assert.ok(forecast.daily.every((value) => value === 0))
      assert.equal(forecast.horizonErrorStdDev, 0)
    }
  })

  test('keeps one huge spike from moving the level or the forecast', () => {
    const steady = series(147, () => 10, 2)
    const spiked = steady.map((value, day) => (day === 140 ? 5000 : value))
    const forecast = forecastDemand(spiked)
    assertUsable(forecast, 'spike')
    // Clipped to about its usual 10; counted back only up to twice the clipping bound, spread over 147 days.
    const total = forecast.daily.slice(0, 14).reduce((sum, value) => sum + value, 0)
    assert.ok(Math.abs(total - 140) < 14, `14-day total ${total}`)
  })

  test('fits 14 to 27 days without a back-test, and refuses fewer than 14 with a RangeError', () => {
    for (const days of [MIN_HISTORY_DAYS, 20, 27]) assertUsable(forecastDemand(series(days, () => 3, 2)), `${days} days`)
    assert.throws(() => forecastDemand([]), RangeError)
    assert.throws(() => forecastDemand([5]), RangeError)
  })
})

describe('totalErrorStdDev', () => {
  test('is the daily error × √days when the 14-day totals erred no more than independent days would', () => {
    assert.equal(totalErrorStdDev(2, null, 9), 6)
    assert.ok(Math.abs(totalErrorStdDev(2, 2 * Math.sqrt(14), 9) - 6) < 1e-9)
    // A 14-day error smaller than independent days give (errors that cancel) does not lower it.
    assert.ok(Math.abs(totalErrorStdDev(2, 1, 9) - 6) < 1e-9)
  })

  test('grows like the days themselves when the errors persist: a level off by the same amount every day', () => {
    // Every day off by 1: one day's error 1, a 14-day total's 14.
    assert.ok(Math.abs(totalErrorStdDev(1, 14, 14) - 14) < 1e-9)
    assert.ok(Math.abs(totalErrorStdDev(1, 14, 30) - 30) < 1e-9)
    assert.ok(Math.abs(totalErrorStdDev(1, 14, 1) - 1) < 1e-9)
  })
})

describe('locationAdjustments', () => {
  /** `count` items of 168 days, each `rateOf(day)` × its own scale with uniform noise of ±`noise`, from distinct seeds. */
  const location = (count: number, rateOf: (day: number) => number, noise = 2) =>
    Array.from({ length: count }, (_, item) => series(168, (day) => (1 + item / count) * rateOf(day), noise, 100 + item).map(Math.round))

  test('scales the items up where the total grows within its noise, and leaves a flat location at 1', () => {
    // +0.2 % a day each: within noise of 0 for the model, which then averages its trend away; Theta keeps half.
    const growing = locationAdjustments(location(30, (day) => 3 * (1 + 0.002 * day), 6))
    assert.ok(growing.trendFactor > 1.01, `growing: ${growing.trendFactor}`)
    const flat = locationAdjustments(location(30, () => 3))
    assert.ok(Math.abs(flat.trendFactor - 1) < 0.02, `flat: ${flat.trendFactor}`)
  })

  test('pools a small smoothing weight for steady items and a larger one after their levels moved together', () => {
    const steady = locationAdjustments(location(30, () => 3))
    assert.ok(steady.smoothingAlpha < NO_LOCATION_ADJUSTMENTS.smoothingAlpha, `steady: ${steady.smoothingAlpha}`)
    // Every item sold twice as much over the last 5 weeks.
    const moved = locationAdjustments(location(30, (day) => (day >= 133 ? 6 : 3)))
    assert.ok(moved.smoothingAlpha > NO_LOCATION_ADJUSTMENTS.smoothingAlpha, `moved: ${moved.smoothingAlpha}`)
  })

  test('changes nothing without items, for items that never sold, or with under 9 weeks of history', () => {
    assert.deepEqual(locationAdjustments([]), NO_LOCATION_ADJUSTMENTS)
    assert.deepEqual(locationAdjustments([new Array<number>(168).fill(0)]), NO_LOCATION_ADJUSTMENTS)
    assert.deepEqual(locationAdjustments(location(5, (day) => 3 + day / 10).map((values) => values.slice(-56))), NO_LOCATION_ADJUSTMENTS)
  })
})
