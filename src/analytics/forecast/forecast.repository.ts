import { type Selectable, sql } from 'kysely'
import { LRUCache } from 'lru-cache'
import { textList } from '../../platform/db/text-list.js'
import type { Executor, Tenant, Trx } from '../../platform/db/database.js'
import { claimableJobs, claimJob, defineJobQueue, extendLease, settleJob } from '../../platform/jobs.js'
import type { HolidayEffect } from './index.js'
import type { ForecastRefitTable } from './forecast.tables.js'

/** Forecasts a process keeps parsed (findForecasts): 2,000 items of 5 bars, about 2 KB each. */
const REMEMBERED_FORECASTS = 10_000

/** One item's stored forecast as analytics uses it (numbers as decimal strings); shared between reads, never changed. */
export interface StoredForecast {
  itemId: string
  daily: readonly string[]
  backtestWape: string | null
  dailyErrorStdDev: string
  /** The back-test's error of a 14-day total (root mean square over its origins); null when stored before it was kept. */
  horizonErrorStdDev: string | null
  seasonality: 'weekly' | 'none'
  trend: 'increasing' | 'decreasing' | 'stable'
  model: string
  historyDays: number
  /** YYYY-MM-DD: the last business day of history; the forecast starts the day after. */
  historyThrough: string
  fittedAt: Date
  /** The days of `daily` scaled by their public holiday's effect at the location, in date order. */
  holidayEffects: readonly HolidayEffect[]
}

export async function upsertForecasts(trx: Trx, tenant: Tenant, forecasts: StoredForecast[]): Promise<void> {
  if (forecasts.length === 0) return
  const rows = forecasts.map((forecast) => ({
    account_id: tenant.accountId,
    environment: tenant.environment,
    item_id: forecast.itemId,
    daily: [...forecast.daily],
    backtest_wape: forecast.backtestWape,
    daily_error_stdev: forecast.dailyErrorStdDev,
    horizon_error_stdev: forecast.horizonErrorStdDev,
    seasonality: forecast.seasonality,
    trend: forecast.trend,
    model: forecast.model,
    history_days: forecast.historyDays,
    history_through: forecast.historyThrough,
    fitted_at: forecast.fittedAt,
    holiday_effects: JSON.stringify(forecast.holidayEffects),
  }))
  await trx
    .insertInto('demand_forecasts')
    .values(rows)
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'environment', 'item_id']).doUpdateSet((eb) => ({
        daily: eb.ref('excluded.daily'),
        backtest_wape: eb.ref('excluded.backtest_wape'),
        daily_error_stdev: eb.ref('excluded.daily_error_stdev'),
        horizon_error_stdev: eb.ref('excluded.horizon_error_stdev'),
        seasonality: eb.ref('excluded.seasonality'),
        trend: eb.ref('excluded.trend'),
        model: eb.ref('excluded.model'),
        history_days: eb.ref('excluded.history_days'),
        history_through: eb.ref('excluded.history_through'),
        fitted_at: eb.ref('excluded.fitted_at'),
        holiday_effects: eb.ref('excluded.holiday_effects'),
      })),
    )
    .execute()
}

/** Removes the tenant's forecasts of items not in `keep` (deleted items, or history that no longer qualifies). */
export async function removeForecastsExcept(trx: Trx, tenant: Tenant, keep: string[]): Promise<number> {
  let query = trx.deleteFrom('demand_forecasts').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment)
  if (keep.length > 0) query = query.where('item_id', 'not in', keep)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows)
}

/**
 * Stored forecasts already read, by tenant and item, each with the version of the row it was read from
 * (the row's xmin: every insert or update of a row makes a new version with a new xmin). A forecast
 * changes only when a refit writes it, but the endpoint reads the tenant's thousands every time: parsing
 * their daily values and holiday effects was a third of its CPU and much of its garbage. A read asks
 * each row's version first and the whole row only of those it does not hold at that version, so what it
 * answers is what the rows hold when read: nothing here is served without the row saying it is current.
 */
const readForecasts = new LRUCache<string, { version: string; forecast: StoredForecast }>({ max: REMEMBERED_FORECASTS })

function forecastKey(tenant: Tenant, itemId: string): string {
  return `${tenant.accountId}|${tenant.environment}|${itemId}`
}

/** The stored forecasts of these items (absent: none stored), or with `'all'` every forecast the tenant has stored. */
export async function findForecasts(db: Executor, tenant: Tenant, itemIds: string[] | 'all'): Promise<Map<string, StoredForecast>> {
  if (itemIds !== 'all' && itemIds.length === 0) return new Map()
  const versions = await forecastRows(db, tenant, itemIds)
    .select(['item_id', sql<string>`xmin::text`.as('version')])
    .execute()
  const found = new Map<string, StoredForecast>()
  const unread: string[] = []
  for (const { item_id, version } of versions) {
    const read = readForecasts.get(forecastKey(tenant, item_id))
    if (read?.version === version) found.set(item_id, read.forecast)
    else unread.push(item_id)
  }
  if (unread.length === 0) return found
  // A row written since its version was read (a refit meanwhile) is read at its new version, and a row
  // deleted meanwhile is left out, as a read after the versions' would have it.
  for (const { version, forecast } of await wholeForecasts(db, tenant, unread)) {
    readForecasts.set(forecastKey(tenant, forecast.itemId), { version, forecast })
    found.set(forecast.itemId, forecast)
  }
  return found
}

function forecastRows(db: Executor, tenant: Tenant, itemIds: string[] | 'all') {
  const rows = db.selectFrom('demand_forecasts').where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment)
  return itemIds === 'all' ? rows : rows.where('item_id', '=', sql<string>`any(${textList(itemIds)})`)
}

async function wholeForecasts(db: Executor, tenant: Tenant, itemIds: string[]): Promise<{ version: string; forecast: StoredForecast }[]> {
  const rows = await forecastRows(db, tenant, itemIds)
    .select([
      'item_id',
      sql<string>`xmin::text`.as('version'),
      // One comma-joined string, split here: the driver's array parser cost a tenth of the forecast endpoint.
      sql<string>`array_to_string(daily, ',')`.as('daily'),
      sql<string | null>`backtest_wape::text`.as('backtest_wape'),
      sql<string>`daily_error_stdev::text`.as('daily_error_stdev'),
      sql<string | null>`horizon_error_stdev::text`.as('horizon_error_stdev'),
      'seasonality',
      'trend',
      'model',
      'history_days',
      sql<string>`history_through::text`.as('history_through'),
      'fitted_at',
      'holiday_effects',
    ])
    .execute()
  return rows.map((row) => ({
    version: row.version,
    forecast: {
      itemId: row.item_id,
      daily: row.daily.split(','),
      backtestWape: row.backtest_wape,
      dailyErrorStdDev: row.daily_error_stdev,
      horizonErrorStdDev: row.horizon_error_stdev,
      seasonality: row.seasonality,
      trend: row.trend,
      model: row.model,
      historyDays: row.history_days,
      historyThrough: row.history_through,
      fittedAt: row.fitted_at,
      holidayEffects: row.holiday_effects,
    },
  }))
}

/**
 * Sale lines per business day at a location on these days (YYYY-MM-DD), from analytics' daily rollup;
 * days without a sale are absent. What past holidays are measured by: a count of lines, unlike units,
 * adds up across items of any unit.
 */
export async function locationSaleLines(db: Executor, tenant: Tenant, location: string, days: string[]): Promise<Map<string, number>> {
  if (days.length === 0) return new Map()
  const rows = await db
    .selectFrom('analytics_item_days')
    .select([sql<string>`business_day::text`.as('day'), sql<string>`sum(sale_lines)::text`.as('lines')])
    .where('account_id', '=', tenant.accountId)
    .where('environment', '=', tenant.environment)
    .where('location_id', '=', location)
    .where('business_day', '=', sql<string>`any(${textList(days)}::date[])`)
    .groupBy('business_day')
    .execute()
  return new Map(rows.map((row) => [row.day, Number(row.lines)]))
}

// ---- Refit job state ----

export type RefitRow = Selectable<ForecastRefitTable>

/**
 * Refits as a job queue, one row per tenant: every row is work, its worker decides in code whether it is
 * due (on the workers' clock, or because history changed) and claims it by key, so a refit runs once
 * across instances. No NOTIFY: the workers poll.
 */
export const REFIT_QUEUE = defineJobQueue<RefitRow>({
  name: 'forecast-refit',
  table: 'forecast_refits',
  key: ['account_id', 'environment'],
  ready: sql`TRUE`,
})

/** Gives every tenant without one a refit row, due at once. */
export async function seedRefits(db: Executor, now: Date): Promise<void> {
  await sql`
    INSERT INTO forecast_refits (account_id, environment, next_attempt_at)
    SELECT a.id, e.environment, ${now}::timestamptz
    FROM accounts a CROSS JOIN (VALUES ('production'), ('sandbox')) AS e (environment)
    WHERE NOT EXISTS (SELECT 1 FROM forecast_refits r WHERE r.account_id = a.id AND r.environment = e.environment)
    ON CONFLICT DO NOTHING`.execute(db)
}

/** The tenant's refit row; undefined before the worker first saw the tenant. */
export async function findRefit(db: Executor, tenant: Tenant): Promise<RefitRow | undefined> {
  const row = await db.selectFrom('forecast_refits').selectAll().where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).executeTakeFirst()
  return row && { ...row, seen_sequence: String(row.seen_sequence) }
}

/** Refit rows no worker holds, the most overdue first. */
export async function unclaimedRefits(db: Executor): Promise<RefitRow[]> {
  // bigint comes back as a number (connect.ts); the sequence is compared as text, as it is typed.
  return (await claimableJobs(db, REFIT_QUEUE)).map((row) => ({ ...row, seen_sequence: String(row.seen_sequence) }))
}

/** Takes the tenant's refit for `leaseMs` unless another worker holds it; undefined when another does. */
export async function claimRefit(db: Executor, tenant: Tenant, leaseMs: number): Promise<RefitRow | undefined> {
  return claimJob(db, REFIT_QUEUE, { account_id: tenant.accountId, environment: tenant.environment }, leaseMs)
}

/** Extends a held lease (each committed chunk of a long refit). */
export async function renewRefitLease(trx: Trx, refit: RefitRow, leaseMs: number): Promise<void> {
  await extendLease(trx, REFIT_QUEUE, refit, leaseMs)
}

/** Releases the lease and records how the refit ended (unless another worker took it over meanwhile). */
export async function finishRefit(
  db: Executor,
  refit: RefitRow,
  outcome: { dueAt: Date; fittedAsOf?: Date; seenSequence?: string; failures: number; lastError: string | null },
): Promise<void> {
  await settleJob(db, REFIT_QUEUE, refit, {
    next_attempt_at: outcome.dueAt,
    failures: outcome.failures,
    last_error: outcome.lastError,
    updated_at: new Date(),
    ...(outcome.fittedAsOf ? { fitted_as_of: outcome.fittedAsOf } : {}),
    ...(outcome.seenSequence ? { seen_sequence: outcome.seenSequence } : {}),
  })
}

/** A location's business calendar at `now`: the open business day and when it closes. */
export async function businessCalendar(db: Executor, location: { timezone: string; business_day_cutoff: string }, now: Date) {
  const result = await sql<{ today: string; closes_at: Date }>`
    SELECT business_day(${now}::timestamptz, ${location.timezone}, ${location.business_day_cutoff})::text AS today,
      ((business_day(${now}::timestamptz, ${location.timezone}, ${location.business_day_cutoff}) + 1)
        + ${location.business_day_cutoff}::interval) AT TIME ZONE ${location.timezone} AS closes_at`.execute(db)
  const row = result.rows[0]
  if (!row) throw new Error('business_day returned no row')
  return { today: row.today, closesAt: new Date(row.closes_at) }
}
