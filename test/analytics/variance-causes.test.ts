import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { type Cause, type CauseInput, CAUSES, rankCauses, type WindowFacts } from '../../src/analytics/variance/variance-causes.js'
import { projectPath } from '../../src/platform/paths.js'

interface Scenario {
  id: string
  set: 'tuning' | 'holdout'
  description: string
  input: CauseInput
  expected: Cause
}

interface Accuracy {
  scenarios: number
  top1: number
  top2: number
  misses: { id: string; expected: Cause; ranked: string[] }[]
}

/** The labelled set: "tuning" scenarios were written before the rules, "holdout" after them and never tuned on. */
function loadScenarios(): Scenario[] {
  const file = JSON.parse(readFileSync(projectPath('test', 'fixtures', 'variance-causes.json'), 'utf8')) as { scenarios: Scenario[] }
  return file.scenarios
}

function measure(scenarios: Scenario[]): Accuracy {
  let top1 = 0
  let top2 = 0
  const misses: Accuracy['misses'] = []
  for (const scenario of scenarios) {
    const ranked = rankCauses(scenario.input)
    const causes = ranked.map((found) => found.cause)
    if (causes[0] === scenario.expected) top1++
    if (causes.slice(0, 2).includes(scenario.expected)) top2++
    if (causes[0] !== scenario.expected) {
      misses.push({ id: scenario.id, expected: scenario.expected, ranked: ranked.slice(0, 3).map((found) => `${found.cause} ${found.confidence}`) })
    }
  }
  return { scenarios: scenarios.length, top1: top1 / scenarios.length, top2: top2 / scenarios.length, misses }
}

function report(name: string, accuracy: Accuracy): string {
  const top1 = Math.round(accuracy.top1 * accuracy.scenarios)
  const top2 = Math.round(accuracy.top2 * accuracy.scenarios)
  return `${name}: ${accuracy.scenarios} scenarios, top-1 ${accuracy.top1.toFixed(3)} (${top1}/${accuracy.scenarios}), top-2 ${accuracy.top2.toFixed(3)} (${top2}/${accuracy.scenarios})`
}

const window = (overrides: Partial<WindowFacts> = {}): WindowFacts => ({
  opening: 6,
  deliveries: 6,
  closing: 4,
  expected: 8,
  saleLines: 120,
  days: 7,
  lowestTheoretical: 2,
  ...overrides,
})

describe('variance cause ranking on the labelled set', () => {
  const scenarios = loadScenarios()

  test('the set has at least 48 scenarios, every cause at least 5 times, a tuning and a held-out part', () => {
    assert.ok(scenarios.length >= 48, `${scenarios.length} scenarios`)
    for (const cause of CAUSES) {
      const count = scenarios.filter((scenario) => scenario.expected === cause).length
      assert.ok(count >= 5, `${cause}: ${count} scenarios`)
    }
    assert.ok(scenarios.some((scenario) => scenario.set === 'holdout'))
    assert.equal(new Set(scenarios.map((scenario) => scenario.id)).size, scenarios.length, 'ids are unique')
  })

  test('top-2 accuracy is at least 0.90 on the whole set', () => {
    const tuning = measure(scenarios.filter((scenario) => scenario.set === 'tuning'))
    const holdout = measure(scenarios.filter((scenario) => scenario.set === 'holdout'))
    const whole = measure(scenarios)
    console.log(report('tuning', tuning))
    console.log(report('holdout', holdout))
    console.log(report('overall', whole))
    for (const miss of whole.misses) console.log(`  top-1 miss ${miss.id}: expected ${miss.expected}, ranked ${miss.ranked.join(', ') || 'nothing'}`)
    assert.ok(whole.top2 >= 0.9, `top-2 ${whole.top2}`)
  })

  test('every cause found carries a confidence in [0, 1] with 2 decimals and finite evidence with 2 decimals', () => {
    for (const scenario of scenarios) {
      for (const found of rankCauses(scenario.input)) {
        assert.ok(CAUSES.includes(found.cause), `${scenario.id}: ${found.cause}`)
        assert.ok(found.confidence >= 0 && found.confidence <= 1, `${scenario.id}: ${found.confidence}`)
        assert.equal(found.confidence, Math.round(found.confidence * 100) / 100, `${scenario.id}: ${found.confidence}`)
        assert.ok(Object.keys(found.evidence).length > 0, `${scenario.id}: ${found.cause} has no evidence`)
        for (const [key, value] of Object.entries(found.evidence)) {
          assert.match(key, /^[a-z][a-z0-9_]*$/, `${scenario.id}: evidence key ${key}`)
          assert.equal(typeof value, 'number', `${scenario.id}: ${found.cause}.${key}`)
          assert.ok(Number.isFinite(value), `${scenario.id}: ${found.cause}.${key} = ${value}`)
          assert.equal(value, Math.round((value as number) * 100) / 100, `${scenario.id}: ${found.cause}.${key} = ${value}`)
        }
      }
    }
  })

  test('ranks by confidence, names each cause at most once, and answers the same every time', () => {
    for (const scenario of scenarios) {
      const ranked = rankCauses(scenario.input)
      for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i - 1]!.confidence >= ranked[i]!.confidence, `${scenario.id}: not sorted`)
      assert.equal(new Set(ranked.map((found) => found.cause)).size, ranked.length, `${scenario.id}: a cause twice`)
      assert.deepEqual(rankCauses(structuredClone(scenario.input)), ranked, `${scenario.id}: not deterministic`)
    }
  })
})

describe('rankCauses', () => {
  test('answers [] when the variance is within the threshold, on either side and exactly at it', () => {
    // actual 8.4 on 8 expected: +5 %, not above a threshold of 5.
    assert.deepEqual(rankCauses({ threshold: 5, window: window({ closing: 3.6 }), previous: [], unmappedSimilar: [] }), [])
    assert.deepEqual(rankCauses({ threshold: 5, window: window({ closing: 4.3 }), previous: [], unmappedSimilar: [] }), [])
    assert.deepEqual(rankCauses({ threshold: 5, window: window({ closing: 4 }), previous: [], unmappedSimilar: [] }), [])
    // The same window is above a 3 % threshold.
    assert.ok(rankCauses({ threshold: 3, window: window({ closing: 3.6 }), previous: [window({ closing: 3.6 }), window({ closing: 3.6 })], unmappedSimilar: [] }).length > 0)
  })

  test('answers [] when nothing was expected and nothing was used', () => {
    assert.deepEqual(rankCauses({ threshold: 5, window: window({ opening: 3, deliveries: 0, closing: 3, expected: 0, saleLines: 0 }), previous: [], unmappedSimilar: [] }), [])
  })

  test('calls usage with no mapped sales at all unrecorded waste (variance 100 %)', () => {
    const [first] = rankCauses({
      threshold: 5,
      window: window({ opening: 40, deliveries: 0, closing: 22, expected: 0, saleLines: 0, lowestTheoretical: 40 }),
      previous: [],
      unmappedSimilar: [],
    })
    assert.equal(first?.cause, 'unrecorded_waste')
    assert.equal(first?.evidence.variance_percentage, 100)
  })

  test('calls stock that rose without a delivery a missing delivery, and the same after an opposite loss a count error', () => {
    const rose = window({ opening: 4, deliveries: 0, closing: 9, expected: 7, lowestTheoretical: -3 })
    assert.equal(rankCauses({ threshold: 5, window: rose, previous: [window(), window()], unmappedSimilar: [] })[0]?.cause, 'missing_delivery')
    // The window before lost 12 more than it sold (8 expected, 20 used): its closing count missed a case.
    const lost = window({ opening: 30, deliveries: 0, closing: 10, expected: 8 })
    assert.equal(
      rankCauses({
        threshold: 5,
        window: window({ opening: 10, deliveries: 0, closing: 14, expected: 8, lowestTheoretical: 2 }),
        previous: [window(), lost],
        unmappedSimilar: [],
      })[0]?.cause,
      'count_error',
    )
  })
})
