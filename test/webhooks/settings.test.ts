import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError } from '../../src/platform/config.js'
import { errorCatalogue } from '../../src/platform/errors.js'
import { signatureHeader } from '../../src/webhooks/signature.js'
import { DEFAULT_WEBHOOK_SETTINGS, loadWebhookSettings, nextAttemptAt, parseDuration } from '../../src/webhooks/webhook-settings.js'
import '../../src/webhooks/webhooks.errors.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

describe('retry schedule', () => {
  test('defaults: 30 s first, doubling to 6 h, giving up after 3 days with about 20 attempts', () => {
    const schedule = DEFAULT_WEBHOOK_SETTINGS.retry
    const start = new Date('2026-11-21T12:00:00.000Z')
    const attempts = [start]
    for (let next = nextAttemptAt(schedule, start, start, 0.5); next; next = nextAttemptAt(schedule, start, next, 0.5)) attempts.push(next)
    const delays = attempts.slice(1).map((at, index) => at.getTime() - attempts[index]!.getTime())
    assert.deepEqual(delays.slice(0, 4), [30_000, 30_000, 60_000, 120_000])
    assert.equal(Math.max(...delays), 6 * HOUR)
    assert.equal(attempts.at(-1)!.getTime() - start.getTime(), 3 * DAY, 'the last attempt is at the 3-day mark')
    assert.ok(attempts.length >= 18 && attempts.length <= 25, `${attempts.length} attempts`)
  })

  test('jitter stays within ±20 % of the delay', () => {
    const schedule = { firstDelayMs: 1000, maxDelayMs: 10_000, giveUpAfterMs: DAY }
    const start = new Date(0)
    const now = new Date(4000)
    assert.equal(nextAttemptAt(schedule, start, now, 0)!.getTime(), 4000 + 3200)
    assert.equal(nextAttemptAt(schedule, start, now, 1)!.getTime(), 4000 + 4800)
  })

  test('the window is over at the deadline: no next attempt', () => {
    const schedule = { firstDelayMs: 1000, maxDelayMs: 1000, giveUpAfterMs: 5000 }
    assert.equal(nextAttemptAt(schedule, new Date(0), new Date(5000)), undefined)
    assert.equal(nextAttemptAt(schedule, new Date(0), new Date(4500), 1)!.getTime(), 5000, 'clamped to the deadline')
  })
})

describe('loadWebhookSettings', () => {
  test('reads the schedule, disable period and concurrency from the environment', () => {
    const settings = loadWebhookSettings({
      BARSTOCK_WEBHOOK_RETRY_SCHEDULE: '500ms,2s,1m',
      BARSTOCK_WEBHOOK_DISABLE_AFTER: '2h',
      BARSTOCK_WEBHOOK_CONCURRENCY: '8',
    })
    assert.deepEqual(settings.retry, { firstDelayMs: 500, maxDelayMs: 2000, giveUpAfterMs: MINUTE })
    assert.equal(settings.disableAfterMs, 2 * HOUR)
    assert.equal(settings.concurrency, 8)
    assert.deepEqual(loadWebhookSettings({}), DEFAULT_WEBHOOK_SETTINGS)
  })

  for (const [name, value] of [
    ['BARSTOCK_WEBHOOK_RETRY_SCHEDULE', '30s,6h'],
    ['BARSTOCK_WEBHOOK_RETRY_SCHEDULE', '30s,6x,3d'],
    ['BARSTOCK_WEBHOOK_RETRY_SCHEDULE', '1h,1m,3d'],
    ['BARSTOCK_WEBHOOK_DISABLE_AFTER', '0s'],
    ['BARSTOCK_WEBHOOK_CONCURRENCY', '0'],
  ]) {
    test(`refuses ${name}=${value} with a ConfigError naming it`, () => {
      assert.throws(
        () => loadWebhookSettings({ [name!]: value }),
        (error: unknown) => error instanceof ConfigError && error.variable === name,
      )
    })
  }

  test('parseDuration', () => {
    assert.deepEqual(['250ms', '30s', '5m', '6h', '3d', '1.5h', '', '-1s'].map(parseDuration), [250, 30_000, 5 * MINUTE, 6 * HOUR, 3 * DAY, undefined, undefined, undefined])
  })
})

describe('webhooks errors and signature', () => {
  test('webhook_not_found and delivery_not_found are 404 codes of the catalogue', () => {
    assert.equal(errorCatalogue().get('webhook_not_found')?.statusCode, 404)
    assert.equal(errorCatalogue().get('delivery_not_found')?.statusCode, 404)
  })

  test('the signature is the hex HMAC-SHA256 of "<t>.<body>" (a known vector)', () => {
    // echo -n '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_vector'
    assert.equal(signatureHeader('whsec_vector', '{"a":1}', 1_700_000_000), 't=1700000000,v1=5d485af0d9ddc3522d7a396ce60598f0d5fbb3bacdb1924001168092bc407c18')
  })
})
