import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setTimeout } from 'node:timers/promises'
import { sql } from 'kysely'
import type { DatabaseHandle } from '../../src/platform/db/connect.js'
import { ChangeLogPruner, changedSince, SNAPSHOT_MAX_AGE_MS, takeSnapshot } from '../../src/platform/tenant-changes.js'
import { openTestDatabase } from '../helpers/context.js'

/**
 * The tenant change log (src/platform/tenant-changes.ts) as the database holds it: every table of tenant
 * data is logged unless it is one of the logs no report reads (a new table must be put on one side), and
 * the pruner deletes only what no snapshot a cache may still use can miss.
 */

/** The tables migrations/20261128020000_tenant_changes.sql leaves out, and why. */
const NOT_LOGGED = [
  'api_keys',
  'forecast_refits', // refit jobs; only the forecast_unavailable error reads them
  'outbox_events',
  'pos_sync_runs',
  'tenant_changes', // the log itself
  'webhook_deliveries',
  'webhook_delivery_attempts',
  'webhooks',
]

let database: DatabaseHandle
before(async () => {
  database = await openTestDatabase()
})
after(() => database.close())

test('every table with tenant columns logs its inserts, updates and deletes, except the logs no report reads', async () => {
  const result = await sql<{ table: string; events: string[] }>`
    SELECT c.relname AS table,
      array(SELECT DISTINCT e FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid,
        unnest(ARRAY[CASE WHEN t.tgtype & 4 > 0 THEN 'insert' END, CASE WHEN t.tgtype & 8 > 0 THEN 'delete' END, CASE WHEN t.tgtype & 16 > 0 THEN 'update' END]) AS e
        WHERE t.tgrelid = c.oid AND p.proname IN ('log_tenant_changes', 'log_child_tenant_changes', 'log_count_window_changes', 'log_timed_tenant_changes', 'log_present_state_changes', 'log_item_tenant_changes', 'log_document_tenant_changes', 'log_present_changes', 'log_context_changes') AND e IS NOT NULL ORDER BY e) AS events
    FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'account_id' AND NOT a.attisdropped)
    ORDER BY 1`.execute(database.db)
  const unlogged = result.rows.filter((row) => row.events.length === 0).map((row) => row.table)
  assert.deepEqual(unlogged, NOT_LOGGED)
  // The windows a variance report stores are its own answer: their inserts are not logged.
  const events = (table: string) => (table === 'analytics_count_windows' ? ['delete', 'update'] : ['delete', 'insert', 'update'])
  for (const row of result.rows.filter((logged) => logged.events.length > 0)) assert.deepEqual(row.events, events(row.table), row.table)
})

test('the pruner deletes the rows of transactions ended before a horizon of its taken over an hour earlier, and no others', async () => {
  const tenant = { accountId: 'acc_pruned', environment: 'sandbox' as const }
  const logChange = () => sql`INSERT INTO tenant_changes (account_id, environment) VALUES (${tenant.accountId}, ${tenant.environment})`.execute(database.db)
  const rows = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM tenant_changes WHERE account_id = ${tenant.accountId}`.execute(database.db)).rows[0]?.n)
  const xmin = async () => BigInt((await sql<{ xmin: string }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`.execute(database.db)).rows[0]!.xmin)
  const pruner = new ChangeLogPruner()
  const start = Date.now()
  await logChange()
  const first = BigInt(
    (await sql<{ xid: string }>`SELECT max(changed_xid::text::numeric)::text AS xid FROM tenant_changes WHERE account_id = ${tenant.accountId}`.execute(database.db)).rows[0]!.xid,
  )
  // Transactions of other databases on the server hold the xmin back while they run: wait for them to end.
  while ((await xmin()) <= first) await setTimeout(50)
  await pruner.prune(database.db, start) // takes its first horizon, after the first change ended
  const snapshot = await takeSnapshot(database.db)
  await logChange()
  assert.equal(await changedSince(database.db, tenant, snapshot), true)
  await pruner.prune(database.db, start + SNAPSHOT_MAX_AGE_MS) // the first horizon is not old enough yet
  assert.equal(await rows(), 2)
  await pruner.prune(database.db, start + SNAPSHOT_MAX_AGE_MS + 300_000)
  assert.equal(await rows(), 1, 'the change before the first horizon is gone, the one after it kept')
  assert.equal(await changedSince(database.db, tenant, snapshot), true, 'a snapshot taken after the horizon still sees the later change')
})
