import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type Decimal, decimal, percentShownAt, quotientShownAt, scaledDecimal, scaledOut, toApiNumber, toScaled } from '../../src/platform/decimal.js'

/** The exact rule percentShownAt answers faster: part × 100 / whole, truncated past the places shown, rounded half-up. */
function exactPercent(places: number, part: Decimal, whole: Decimal): number {
  return toApiNumber(quotientShownAt(places, part.times(100), whole), places)
}

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

/** A decimal string with up to `places` decimals and up to `digits` before the point, either sign. */
function randomDecimal(next: () => number, digits: number, places: number): string {
  const whole = Math.floor(next() * 10 ** Math.ceil(next() * digits))
  const fraction = String(Math.floor(next() * 10 ** places)).padStart(places, '0')
  return `${next() < 0.3 ? '-' : ''}${whole}.${fraction}`
}

/** Both values scaled alike, to as many places as either has. */
const SCALE = 16

describe('percentShownAt', () => {
  test('answers exactly what the exact rule answers, at rounding boundaries and at random', () => {
    const cases: [string, string][] = [
      // Exactly half a hundredth: rounds away from zero, where the doubles fall a hair short (1.005 is 1.00499… as a double).
      ['1.005', '100'],
      ['-1.005', '100'],
      ['0.00000001', '0.00000002'],
      ['2.675', '100'],
      ['1', '3'],
      ['-2', '3'],
      ['1.63412', '2.36588'],
      // A hair either side of a boundary.
      ['1.00499999', '100'],
      ['1.00500001', '100'],
      ['0', '7'],
      // Too large for doubles to round: answered by the exact rule.
      ['123456789012.5', '0.0001'],
    ]
    const next = random(7)
    for (let index = 0; index < 20_000; index++) {
      const whole = randomDecimal(next, 6, 8)
      if (decimal(whole).eq(0)) continue
      // Parts near a boundary: the whole times a percentage of exactly three decimals ending in 5.
      const boundary = decimal(whole)
        .times(`${Math.floor(next() * 400_000) - 200_000}5`)
        .div(100_000)
        .toFixed()
      cases.push([randomDecimal(next, 6, 8), whole], [boundary, whole])
    }
    for (const [part, whole] of cases) {
      const expected = exactPercent(2, decimal(part), decimal(whole))
      const answered = percentShownAt(2, toScaled(part, SCALE), toScaled(whole, SCALE))
      assert.ok(answered === expected, `${part} / ${whole} × 100: ${answered}, exactly ${expected}`)
    }
  })
})

describe('scaled decimals', () => {
  test('sums, differences and products answer as big.js and toApiNumber answer the same decimals', () => {
    const next = random(11)
    for (let index = 0; index < 20_000; index++) {
      // Magnitudes up to 10^12 (a numeric(16, 4)): products pass 2^53, where answering needs the decimal's text.
      const [a, b, c] = [randomDecimal(next, 12, 4), randomDecimal(next, 8, 8), randomDecimal(next, 12, 4)]
      const units = toScaled(a, 8) - toScaled(b, 8)
      const product = units * toScaled(c, 4)
      const exactUnits = decimal(a).minus(b)
      const exactProduct = exactUnits.times(c)
      for (const shown of [0, 2, 4, 8]) assert.equal(scaledOut(units, 8, shown), toApiNumber(exactUnits, shown), `${a} − ${b} at ${shown}`)
      for (const shown of [2, 4, 12]) assert.equal(scaledOut(product, 12, shown), toApiNumber(exactProduct, shown), `(${a} − ${b}) × ${c} at ${shown}`)
      assert.ok(scaledDecimal(product, 12).eq(exactProduct))
    }
  })

  test('a decimal with more places than scaled to is refused, trailing zeros aside', () => {
    assert.equal(toScaled('12.30000000000', 4), 123_000n)
    assert.equal(toScaled('-0.5', 2), -50n)
    assert.equal(toScaled('7', 3), 7000n)
    assert.throws(() => toScaled('0.12345', 4), /more than 4 decimals/)
  })
})

describe('toApiNumber', () => {
  test('a database numeric’s text answers what its exact decimal rounded answers, with or without the shortcut', () => {
    const cases = ['0', '-0', '-0.0000', '12', '-12.5000', '0.1000', '1.23450', '1.23456', '99999999.99995', '-7.00005', '-0.001', '-0.005', '00012.5', '1e3', '.5', '5.', '+5']
    cases.push('123456789012345678.123456789', '-98765432109876543210.5', '0.00000000000000000001')
    const next = random(11)
    for (let index = 0; index < 20_000; index++) {
      const value = randomDecimal(next, 9, Math.floor(next() * 7))
      cases.push(value.endsWith('.') ? value.slice(0, -1) : value, `${value}000`)
    }
    for (const text of cases) {
      for (const places of [0, 2, 4]) {
        let exact: number
        try {
          exact = Number(decimal(text).round(places).toFixed(places)) || 0
        } catch {
          assert.throws(() => toApiNumber(text, places), /Invalid number/, text)
          continue
        }
        assert.ok(Object.is(toApiNumber(text, places), exact), `${text} at ${places}: ${toApiNumber(text, places)}, exactly ${exact}`)
      }
    }
  })
})
