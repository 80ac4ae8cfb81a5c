import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { MemoryRateLimitStore, RateLimiter, RedisRateLimitStore } from '../../src/platform/rate-limit.js'
import { createTestContext, json, type TestContext } from '../helpers/context.js'

const contexts: TestContext[] = []
after(() => Promise.all(contexts.map((ctx) => ctx.close())))

async function context(store?: RedisRateLimitStore) {
  const ctx = await createTestContext({
    env: { BARSTOCK_RATE_LIMIT_SANDBOX: '3', BARSTOCK_RATE_LIMIT_PRODUCTION: '5' },
    ...(store ? { rateLimitStore: store } : {}),
  })
  contexts.push(ctx)
  return ctx
}

describe('rate limits', () => {
  test('every /v1 response carries the four headers; Reset is Unix seconds of the window end', async () => {
    const ctx = await context()
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const response = await ctx.request('GET', '/v1/inventory/items', { key: caller.key })
    const now = Math.floor(Date.now() / 1000)
    assert.equal(response.headers['x-ratelimit-limit'], '3')
    assert.equal(response.headers['x-ratelimit-remaining'], '2')
    const reset = Number(response.headers['x-ratelimit-reset'])
    const resetAfter = Number(response.headers['x-ratelimit-reset-after'])
    assert.ok(reset > now && reset <= now + 61, `reset ${reset} is within the next minute of ${now}`)
    assert.ok(resetAfter >= 1 && resetAfter <= 60)
    assert.ok(Math.abs(reset - now - resetAfter) <= 1)
  })

  test('a malformed path counts against the client address: past its limit it is 429, not 400', async () => {
    const ctx = await context()
    // Without a valid key, requests count per client address at the production limit (5).
    for (let index = 0; index < 5; index++) assert.equal((await ctx.request('GET', '/v1/orders/%zz')).statusCode, 400)
    const response = await ctx.request('GET', '/v1/orders/%zz')
    assert.equal(response.statusCode, 429)
    assert.equal(json(response).error.code, 'rate_limit_exceeded')
    assert.equal(response.headers['x-ratelimit-remaining'], '0')
    assert.ok(Number(response.headers['retry-after']) >= 1)
  })

  test('over the limit is 429 rate_limit_exceeded with Retry-After; errors carry the headers too', async () => {
    const ctx = await context()
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    for (let index = 0; index < 3; index++) await ctx.request('GET', '/v1/nothing', { key: caller.key })
    const response = await ctx.request('GET', '/v1/inventory/items', { key: caller.key })
    assert.equal(response.statusCode, 429)
    assert.equal(json(response).error.code, 'rate_limit_exceeded')
    assert.equal(response.headers['x-ratelimit-remaining'], '0')
    assert.equal(response.headers['retry-after'], response.headers['x-ratelimit-reset-after'])
    // Another key has its own budget; production keys have the production limit.
    const other = await ctx.newCaller()
    const fresh = await ctx.request('GET', '/v1/inventory/items', { key: other.key })
    assert.equal(fresh.statusCode, 200)
    assert.equal(fresh.headers['x-ratelimit-limit'], '5')
  })

  test('requests without a valid key count against the client address at the production limit', async () => {
    const ctx = await context()
    const statuses = []
    for (let index = 0; index < 6; index++) statuses.push((await ctx.request('GET', '/v1/inventory/items', { key: 'bs_live_bogus' })).statusCode)
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429])
  })

  test('the in-memory window resets when the minute turns', async () => {
    let now = 1_800_000_000_000
    const limiter = new RateLimiter(new MemoryRateLimitStore(), 60_000, () => now)
    for (let index = 0; index < 2; index++) assert.equal((await limiter.hit('k', 2)).exceeded, false)
    assert.equal((await limiter.hit('k', 2)).exceeded, true)
    now += 60_000
    const fresh = await limiter.hit('k', 2)
    assert.equal(fresh.exceeded, false)
    assert.equal(fresh.remaining, 1)
    assert.equal(fresh.resetAt, (now + 60_000) / 1000)
  })

  const redisUrl = process.env.REDIS_URL
  test('with Redis, the count is shared by instances and atomic under concurrency', { skip: redisUrl ? false : 'REDIS_URL is not set' }, async () => {
    const first = new RateLimiter(new RedisRateLimitStore(redisUrl!))
    const second = new RateLimiter(new RedisRateLimitStore(redisUrl!))
    try {
      const bucket = `test:${process.pid}:${Date.now()}`
      // hit answers synchronously from memory stores only; Redis always answers with a promise.
      const results = await Promise.all(Array.from({ length: 40 }, async (_, index) => (index % 2 ? first : second).hit(bucket, 25)))
      assert.equal(results.filter((result) => !result.exceeded).length, 25)
      assert.deepEqual(
        results
          .map((result) => result.remaining)
          .sort((a, b) => a - b)
          .slice(15),
        Array.from({ length: 25 }, (_, index) => index),
      )
      const ctx = await context(new RedisRateLimitStore(redisUrl!))
      const caller = await ctx.newCaller({ environment: 'sandbox' })
      const statuses = []
      for (let index = 0; index < 4; index++) statuses.push((await ctx.request('GET', '/v1/auth/test', { key: caller.key })).statusCode)
      assert.deepEqual(statuses, [200, 200, 200, 429])
    } finally {
      await first.close()
      await second.close()
    }
  })
})

test('when Redis cannot be reached, requests are still counted, in memory', async () => {
  const errors: Error[] = []
  const store = new RedisRateLimitStore('redis://127.0.0.1:9', (error) => errors.push(error))
  // A fixed clock: the three hits take about 1.5 s (each waits out the command timeout) and must not
  // straddle a minute boundary.
  const limiter = new RateLimiter(store, 60_000, () => 1_800_000_030_000)
  try {
    const results = []
    for (let index = 0; index < 3; index++) results.push(await limiter.hit('down', 2))
    assert.deepEqual(
      results.map((result) => result.exceeded),
      [false, false, true],
    )
    assert.ok(errors.length > 0, 'the outage is reported')
  } finally {
    await limiter.close()
  }
})
