import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../../src/platform/config.js'

test('defaults follow the run contract', () => {
  const config = loadConfig({})
  assert.equal(config.port, 3000)
  assert.ok(config.dataDir.endsWith('/data'))
  assert.deepEqual(config.rateLimits, { production: 1000, sandbox: 100 })
  assert.equal(config.webhookAllowPrivate, false)
  assert.equal(config.databaseUrl, undefined)
  assert.equal(config.metricsToken, undefined)
  assert.equal(config.posRequestTimeoutMs, 10_000)
  assert.equal(loadConfig({ BARSTOCK_POS_REQUEST_TIMEOUT_SECONDS: '90' }).posRequestTimeoutMs, 90_000)
  assert.equal(config.posRunBudgetMs, 1_800_000)
  assert.equal(loadConfig({ BARSTOCK_POS_RUN_BUDGET_SECONDS: '600' }).posRunBudgetMs, 600_000)
  assert.equal(config.forecastRefitDelayMs, 60_000)
  assert.equal(loadConfig({ BARSTOCK_FORECAST_REFIT_DELAY_SECONDS: '1' }).forecastRefitDelayMs, 1000)
  assert.deepEqual(config.databaseTimeouts, { connectMs: 5_000, statementMs: 30_000, idleInTransactionMs: 60_000, probeMs: 1_500, stallCheckMs: 2_000 })
  assert.equal(config.bulkWriteSlots, 2, 'a fifth of the pool')
  assert.equal(loadConfig({ BARSTOCK_DB_POOL_SIZE: '20' }).bulkWriteSlots, 4)
  assert.equal(loadConfig({ BARSTOCK_DB_POOL_SIZE: '3' }).bulkWriteSlots, 1)
  assert.equal(loadConfig({ BARSTOCK_DB_POOL_SIZE: '1' }).bulkWriteSlots, 1, 'never none')
  assert.equal(loadConfig({ BARSTOCK_BULK_WRITE_SLOTS: '8' }).bulkWriteSlots, 8)
  assert.equal(config.bulkWriteWaitMs, 30_000)
  assert.equal(loadConfig({ BARSTOCK_BULK_WRITE_WAIT_MS: '200' }).bulkWriteWaitMs, 200)
  const quick = loadConfig({ BARSTOCK_DB_PROBE_TIMEOUT_MS: '500', BARSTOCK_DB_STALL_CHECK_MS: '750' }).databaseTimeouts
  assert.deepEqual([quick.probeMs, quick.stallCheckMs], [500, 750])
})

test('the POS OAuth applications come from their vendor-named variables, an empty one being unset', () => {
  assert.deepEqual(loadConfig({}).posOAuthApps, { square: { clientId: undefined, clientSecret: undefined }, clover: { clientId: undefined } })
  const env = { SQUARE_APPLICATION_ID: 'sq0idp-app', SQUARE_APPLICATION_SECRET: '', CLOVER_APP_ID: 'CLOVERAPP' }
  assert.deepEqual(loadConfig(env).posOAuthApps, { square: { clientId: 'sq0idp-app', clientSecret: undefined }, clover: { clientId: 'CLOVERAPP' } })
})

test('each bad value is refused with a message naming its variable', () => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: 'http' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ BARSTOCK_RATE_LIMIT_PRODUCTION: '0' }, 'BARSTOCK_RATE_LIMIT_PRODUCTION'],
    [{ BARSTOCK_WEBHOOK_ALLOW_PRIVATE: 'yes' }, 'BARSTOCK_WEBHOOK_ALLOW_PRIVATE'],
    [{ BARSTOCK_SECRET_KEY: 'short' }, 'BARSTOCK_SECRET_KEY'],
    [{ BARSTOCK_LOG_LEVEL: 'loud' }, 'BARSTOCK_LOG_LEVEL'],
    [{ BARSTOCK_METRICS_TOKEN: 'too-short-token' }, 'BARSTOCK_METRICS_TOKEN'],
    [{ BARSTOCK_POS_REQUEST_TIMEOUT_SECONDS: '601' }, 'BARSTOCK_POS_REQUEST_TIMEOUT_SECONDS'],
    [{ BARSTOCK_POS_RUN_BUDGET_SECONDS: '86401' }, 'BARSTOCK_POS_RUN_BUDGET_SECONDS'],
    [{ BARSTOCK_POS_RUN_BUDGET_SECONDS: '0' }, 'BARSTOCK_POS_RUN_BUDGET_SECONDS'],
    [{ BARSTOCK_METRICS_TOKEN: 'a token with spaces in it' }, 'BARSTOCK_METRICS_TOKEN'],
    [{ BARSTOCK_FORECAST_REFIT_DELAY_SECONDS: '0' }, 'BARSTOCK_FORECAST_REFIT_DELAY_SECONDS'],
    [{ BARSTOCK_FORECAST_REFIT_DELAY_SECONDS: '3601' }, 'BARSTOCK_FORECAST_REFIT_DELAY_SECONDS'],
    [{ BARSTOCK_FORECAST_REFIT_DELAY_SECONDS: '1.5' }, 'BARSTOCK_FORECAST_REFIT_DELAY_SECONDS'],
    [{ BARSTOCK_DB_PROBE_TIMEOUT_MS: '10001' }, 'BARSTOCK_DB_PROBE_TIMEOUT_MS'],
    [{ BARSTOCK_DB_PROBE_TIMEOUT_MS: '0' }, 'BARSTOCK_DB_PROBE_TIMEOUT_MS'],
    [{ BARSTOCK_DB_STALL_CHECK_MS: '2s' }, 'BARSTOCK_DB_STALL_CHECK_MS'],
    [{ BARSTOCK_BULK_WRITE_SLOTS: '0' }, 'BARSTOCK_BULK_WRITE_SLOTS'],
    [{ BARSTOCK_BULK_WRITE_SLOTS: '11' }, 'BARSTOCK_BULK_WRITE_SLOTS'],
    [{ BARSTOCK_BULK_WRITE_WAIT_MS: '0' }, 'BARSTOCK_BULK_WRITE_WAIT_MS'],
    [{ BARSTOCK_DIRECT_DATABASE_URL: 'postgres://db.internal/barstock' }, 'BARSTOCK_DIRECT_DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://pooler.internal/barstock', BARSTOCK_DIRECT_DATABASE_URL: 'redis://db.internal' }, 'BARSTOCK_DIRECT_DATABASE_URL'],
    [{ BARSTOCK_REPLICA_URL: 'postgres://standby.internal/barstock' }, 'BARSTOCK_REPLICA_URL'],
    [{ DATABASE_URL: 'postgres://db.internal/barstock', BARSTOCK_REPLICA_URL: 'standby.internal' }, 'BARSTOCK_REPLICA_URL'],
    [
      { DATABASE_URL: 'postgres://db.internal/barstock', BARSTOCK_REPLICA_URL: 'postgres://standby.internal/barstock', BARSTOCK_REPLICA_MAX_LAG_MS: '60001' },
      'BARSTOCK_REPLICA_MAX_LAG_MS',
    ],
  ]
  for (const [env, variable] of cases) {
    assert.throws(
      () => loadConfig(env),
      (error: unknown) => error instanceof ConfigError && error.variable === variable && error.message.startsWith(variable),
      variable,
    )
  }
})

test('the secret key is accepted as 64 hex digits or base64 of 32 bytes', () => {
  const hex = 'ab'.repeat(32)
  assert.equal(loadConfig({ BARSTOCK_SECRET_KEY: hex }).secretKey?.length, 32)
  assert.equal(loadConfig({ BARSTOCK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }).secretKey?.length, 32)
})
