import assert from 'node:assert/strict'
import { test } from 'node:test'
import { decimal } from '../../src/platform/decimal.js'
import { json } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createSyncedConnection, itemQuantity, ledgerOf, runSync, startSwitchableSquare, usePosFixture, waitForSync } from './pos-helpers.js'
import { DAY_MS } from '../../src/platform/zoned-time.js'

// The vendor and the worker live two days ahead: an item created now has two days of sales after its
// starting stock, and thirty days before it.
const AHEAD_MS = 2 * DAY_MS
const twoDaysAhead = () => new Date(Date.now() + AHEAD_MS)

const pos = usePosFixture({ square: () => startSwitchableSquare(11, twoDaysAhead) }, { clock: twoDaysAhead })

test('a run takes stock by sale time: one ledger row per business day after the starting stock, dated at its last sale; earlier sales are history', async () => {
  const caller = await pos.ctx.newCaller({ environment: 'production' })
  const connection = await createSyncedConnection(pos.ctx, caller)
  const catalog = await waitForSync(pos.ctx, caller, connection.first_sync_id)
  // Wipe the first run's lines so the next run brings them anew under the mapping.
  await pos.ctx.database.db.deleteFrom('pos_sales').where('source_id', '=', catalog.sync_id).execute()
  const bud = await createItem(pos.ctx, caller, { name: 'Bud Light 12oz Bottle', unit: 'bottle', size_ml: 355, quantity: 1, category: 'beer' })
  const list = json(await pos.ctx.request('GET', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key, query: { per_page: '100' } }))
  const posItemId = list.data.find((entry: { pos_name: string }) => entry.pos_name === 'Bud Light Btl').pos_item_id
  await pos.ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
    key: caller.key,
    body: { pos_item_id: posItemId, inventory_item_id: bud.id, conversion_factor: 1, conversion_unit: 'bottle' },
  })
  const run = await runSync(pos.ctx, caller, connection.id, 'full')
  assert.equal(run.status, 'completed')

  const lines = await pos.ctx.database.db
    .selectFrom('pos_sales')
    .select(['quantity', 'sold_at'])
    .where('connection_id', '=', connection.id)
    .where('pos_item_id', '=', posItemId)
    .execute()
  const createdAt = new Date(bud.created_at as string)
  const soldAfter = lines.filter((line) => line.sold_at > createdAt)
  assert.ok(soldAfter.length > 0 && soldAfter.length < lines.length)
  const takenUnits = soldAfter.reduce((total, line) => total.plus(line.quantity), decimal(0))
  assert.equal(await itemQuantity(pos.ctx, caller, bud.id), Number(decimal(1).minus(takenUnits).toFixed(4)))

  // main_bar is on UTC with a 04:00 cut-off: one row per business day of the sales after the item existed,
  // dated at its last sale, and one per business day of the refunds of those sales (negative lines, dated
  // at the sale they take back), given back as a movement of its own.
  const businessDay = (at: Date) => new Date(at.getTime() - 4 * 3_600_000).toISOString().slice(0, 10)
  const days = new Map<string, { units: number; last: Date }>()
  for (const line of soldAfter) {
    const key = `${businessDay(line.sold_at)} ${Number(line.quantity) < 0 ? 'refund' : 'sale'}`
    const entry = days.get(key) ?? { units: 0, last: line.sold_at }
    days.set(key, { units: entry.units + Number(line.quantity), last: line.sold_at > entry.last ? line.sold_at : entry.last })
  }
  const sales = (await ledgerOf(pos.ctx, bud.id)).filter((row) => row.kind === 'sale')
  const byTime = (a: unknown[], b: unknown[]) => String(a[1]).localeCompare(String(b[1]))
  assert.deepEqual(
    sales.map((row) => [Number(row.delta), row.occurred_at.toISOString(), row.reference_id]).sort(byTime),
    [...days.values()].map((day) => [-day.units, day.last.toISOString(), run.sync_id]).sort(byTime),
  )
  // One bottle against two days of sales: stock goes below zero, reported as variance, never an error.
  assert.equal(run.results.variance_detected, 1)
})
