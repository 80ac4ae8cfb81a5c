import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { adminCommands } from '../../src/cli/commands.js'
import type { ArchiveResult } from '../../src/cli/archive-command.js'
import { maintainPartitions, monthPartitions } from '../../src/platform/db/partitions.js'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { createPosTestContext } from '../pos/pos-helpers.js'
import { createItem } from '../helpers/inventory.js'
import { count, salesChannel } from '../analytics/analytics-helpers.js'
import { runCli, scratchDataDir } from '../helpers/server-process.js'

/**
 * The tables that grow with sales are partitioned by month (docs/operations.md, "Partitions and archive"):
 * a back-dated line is accepted whatever month it falls in, a line id stays taken across months and
 * archives, and `barstock archive` detaches only what no report or count window needs.
 */

let ctx: TestContext
let caller: Caller
let channel: Awaited<ReturnType<typeof salesChannel>>
let itemId: string

before(async () => {
  // A database of this file alone (a queue limit of its own opens one on PGlite; PostgreSQL gives every
  // file a scratch database): archiving detaches partitions, which the files sharing one must keep.
  ctx = await createPosTestContext({ env: { BARSTOCK_PGLITE_QUEUE_LIMIT: '999' } })
  caller = await ctx.newCaller({ environment: 'sandbox' })
  channel = await salesChannel(ctx, caller)
  itemId = (await createItem(ctx, caller, { name: 'Gin', quantity: 20 })).id
  await channel.map('GIN', { inventory_item_id: itemId, conversion_factor: 1.5, conversion_unit: 'oz' })
})
after(async () => {
  await ctx.close()
})

const ARCHIVE_AFTER_DAYS = 732

async function archive(beforeMonth: string, drop = false): Promise<ArchiveResult> {
  return (await adminCommands(ctx.database).archive!({ before: beforeMonth, drop, archiveAfterDays: ARCHIVE_AFTER_DAYS })) as ArchiveResult
}

async function importLine(lineId: string, soldAt: string, posItemId = 'GIN') {
  const response = await ctx.request('POST', '/v1/sales', {
    key: caller.key,
    body: {
      connection_id: channel.connectionId,
      sales: [{ line_id: lineId, location: 'main_bar', pos_item_id: posItemId, name: 'Gin & tonic', quantity: 1, unit_price: 9, sold_at: soldAt }],
    },
  })
  assert.equal(response.statusCode, 201, response.body)
  const { imported, duplicates } = json(response).data as { imported: number; duplicates: number }
  return { imported, duplicates }
}

async function variance(from: string, to: string) {
  const response = await ctx.request('GET', '/v1/analytics/variance', { key: caller.key, query: { date_from: from, date_to: to } })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

async function partitionNames(): Promise<string[]> {
  return (await monthPartitions(ctx.database.db)).map((part) => part.partition)
}

test('a sale back-dated into a month without a partition is accepted, and moves into a partition of its month when partitions are maintained', async () => {
  assert.ok(!(await partitionNames()).includes('pos_sales_2019_03'), 'no partition for March 2019 yet')
  assert.deepEqual(await importLine('B1', '2019-03-14T21:00:00Z'), { imported: 1, duplicates: 0 })
  const made = await maintainPartitions(ctx.database.db)
  assert.ok(made.includes('pos_sales_2019_03') && made.includes('stock_sale_usage_2019_03'), made.join(', '))
  const inMarch = await sql<{ lines: number }>`SELECT count(*)::int AS lines FROM pos_sales_2019_03 WHERE line_id = 'B1'`.execute(ctx.database.db)
  assert.equal(inMarch.rows[0]?.lines, 1)
  assert.deepEqual(await importLine('B1', '2019-03-14T21:00:00Z'), { imported: 0, duplicates: 1 }, 'still a duplicate once moved')
})

test('a line re-sent with a corrected sale time in another month is still a duplicate', async () => {
  assert.deepEqual(await importLine('C1', '2020-01-31T23:30:00Z'), { imported: 1, duplicates: 0 })
  assert.deepEqual(await importLine('C1', '2020-02-01T00:30:00Z'), { imported: 0, duplicates: 1 })
  const stored = await sql<{ sold_at: Date }>`SELECT sold_at FROM pos_sales WHERE connection_id = ${channel.connectionId} AND line_id = 'C1'`.execute(ctx.database.db)
  assert.deepEqual(
    stored.rows.map((row) => row.sold_at.toISOString()),
    ['2020-01-31T23:30:00.000Z'],
    'the first time stays, once',
  )
})

test('archive refuses a month younger than the configured age, and one whose history a count window still needs; nothing is detached', async () => {
  const partitionsBefore = await partitionNames()
  const thisMonth = new Date().toISOString().slice(0, 7)
  await assert.rejects(archive(thisMonth), /would archive sales younger than 732 days \(BARSTOCK_ARCHIVE_AFTER_DAYS\); the latest month allowed today is \d{4}-\d{2}/)

  // Counted in June and September 2021 (back-dated: history, current stock stays): the item's open
  // count window opens in September 2021, its latest closed one in June.
  const counted = await createItem(ctx, caller, { name: 'Rum', quantity: 5 })
  await count(ctx, caller, [{ item_id: counted.id, quantity: 4 }], '2021-06-10T23:00:00Z')
  await count(ctx, caller, [{ item_id: counted.id, quantity: 3 }], '2021-09-10T23:00:00Z')
  await assert.rejects(
    archive('2021-07'),
    new RegExp(
      `would archive stock history that item ${counted.id} \\(Rum, account ${caller.tenant.accountId}, sandbox\\) still needs from 2021-06-10T23:00:00.000Z.*the latest month allowed now is 2021-06`,
    ),
  )
  await assert.rejects(archive('2021-13'), /--before takes a month as YYYY-MM, got "2021-13"/)
  assert.deepEqual(await partitionNames(), partitionsBefore)
  const deleted = await ctx.request('DELETE', `/v1/inventory/items/${counted.id}`, { key: caller.key })
  assert.equal(deleted.statusCode, 200, deleted.body)
})

test('the CLI refuses an unsafe month with one line and exit code 1', async () => {
  const result = await runCli(['archive', '--before', '2999-01'], { BARSTOCK_DATA_DIR: scratchDataDir() })
  assert.equal(result.code, 1)
  assert.match(result.stderr, /^barstock: --before 2999-01 would archive sales younger than 732 days/m)
  assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace')
  assert.equal(result.stdout, '')
})

test('archive detaches the months before the one named; reports over them still answer, and their line ids stay taken', async () => {
  // A count window in January and February 2020, with sales inside it; then eight counts in 2021, so
  // the item's windows in use (the open one and those its report reads) are all after 2020.
  await count(ctx, caller, [{ item_id: itemId, quantity: 12 }], '2020-01-05T23:00:00Z')
  for (const [index, day] of ['2020-01-12', '2020-01-20', '2020-02-03', '2020-02-14'].entries()) await importLine(`W${index}`, `${day}T21:00:00Z`)
  await count(ctx, caller, [{ item_id: itemId, quantity: 11 }], '2020-02-20T23:00:00Z')
  for (let month = 1; month <= 8; month++) await count(ctx, caller, [{ item_id: itemId, quantity: 10 }], `2021-0${month}-15T23:00:00Z`)
  const report = await variance('2020-01-06', '2020-02-20')
  assert.equal(report.items.length, 1, JSON.stringify(report))

  const archived = await archive('2021-01')
  const months = (table: string) => archived.partitions.filter((part) => part.table === table).map((part) => part.month)
  assert.deepEqual(months('pos_sales'), ['2019-03', '2020-01', '2020-02'])
  assert.deepEqual(months('stock_sale_usage'), ['2019-03', '2020-01', '2020-02'])
  for (const part of archived.partitions) assert.match(part.kept_as ?? '', new RegExp(`^${part.table}_${part.month.replace('-', '_')}_archived_\\d{14}$`))
  const kept = await sql<{
    lines: number
  }>`SELECT count(*)::int AS lines FROM ${sql.table(archived.partitions.find((part) => part.table === 'pos_sales' && part.month === '2020-01')!.kept_as!)}`.execute(ctx.database.db)
  assert.equal(kept.rows[0]?.lines, 3, 'the detached month keeps its lines, as a table of its own')
  assert.ok(!(await partitionNames()).some((name) => name.startsWith('pos_sales_2020_')), 'no longer a partition')

  assert.deepEqual(await variance('2020-01-06', '2020-02-20'), report, 'the variance report over archived months answers as before')
  assert.deepEqual(await importLine('W0', '2020-01-12T21:00:00Z'), { imported: 0, duplicates: 1 }, 'an archived line is still a duplicate')
  assert.deepEqual(await importLine('C1', '2020-03-01T00:00:00Z'), { imported: 0, duplicates: 1 })

  // A line back-dated into an archived month is accepted into a new partition of that month; --drop drops it.
  assert.deepEqual(await importLine('LATE', '2020-01-25T21:00:00Z'), { imported: 1, duplicates: 0 })
  const dropped = await archive('2021-01', true)
  assert.deepEqual(
    dropped.partitions.map((part) => [part.table, part.month, part.kept_as]),
    [
      ['pos_sales', '2020-01', null],
      ['stock_sale_usage', '2020-01', null],
    ],
  )
  const tables = await sql<{ name: string | null }>`SELECT to_regclass('pos_sales_2020_01')::text AS name`.execute(ctx.database.db)
  assert.equal(tables.rows[0]?.name, null, 'dropped')
})
