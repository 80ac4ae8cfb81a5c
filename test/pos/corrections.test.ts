import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { type PosAdapter, PosAdapterError, type PosCredentials, type PosSaleLine, type PosVendor, type SalesWindow } from '../../src/pos/vendors/adapter.js'
import type { Environment } from '../../src/platform/db/database.js'
import { PosGateway } from '../../src/pos/connections/pos-gateway.js'
import type { Caller } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createSyncedConnection, itemQuantity, ledgerOf, runSync, startSwitchableSquare, usePosFixture, waitForSync } from './pos-helpers.js'

/**
 * Modifiers and corrections through a sync run, from a scripted vendor: the core's rules (a correction
 * takes back from the day its line was sold, once; one that comes before its line waits for it; a
 * modifier depletes its own item) independent of any one vendor's API.
 */

/** The vendor a test scripts: the menu it lists and the lines it answers for any window. */
const script = { lines: [] as PosSaleLine[], failAfterLines: false }

class ScriptedGateway extends PosGateway {
  override async adapterForRun(_vendor: PosVendor, _environment: Environment, _credentials: PosCredentials): Promise<PosAdapter> {
    return {
      async verify() {},
      async listProducts() {
        return [
          { posItemId: 'vodka-pour', name: "Tito's Vodka 1.5oz", category: 'Spirits', sku: null, price: '8.00' },
          { posItemId: 'extra-shot', name: "Extra Shot Tito's 1oz", category: 'Modifiers', sku: null, price: '4.00' },
        ]
      },
      async *listSales(window: SalesWindow) {
        yield script.lines.filter((line) => line.soldAt >= window.start && line.soldAt < window.end)
        if (script.failAfterLines) throw new PosAdapterError('connection_failed', 'the vendor went away mid-run')
      },
      async listStaff() {
        return []
      },
    }
  }
}

function line(lineId: string, posItemId: string, quantity: string, soldAt: Date, links: Partial<PosSaleLine> = {}): PosSaleLine {
  return { lineId, posItemId, name: posItemId, quantity, unitPrice: '8.00', soldAt, checkId: 'chk1', staffId: null, staffName: null, tip: null, ...links }
}

const pos = usePosFixture({ square: () => startSwitchableSquare(5) }, { gateway: (config) => new ScriptedGateway(config) })
let caller: Caller

beforeEach(async () => {
  caller = await pos.ctx.newCaller({ environment: 'production' })
  script.lines = []
  script.failAfterLines = false
})

/** A connection whose two POS items map to a vodka bottle (1.5 oz a pour, 1 oz a shot): 25.36 oz. */
async function mappedVodka() {
  const connection = await createSyncedConnection(pos.ctx, caller)
  await waitForSync(pos.ctx, caller, connection.first_sync_id)
  const vodka = await createItem(pos.ctx, caller, { name: "Tito's Handmade Vodka 750ml", unit: 'bottle', size_ml: 750, quantity: 10, category: 'spirits' })
  for (const [posItemId, ounces] of [
    ['vodka-pour', 1.5],
    ['extra-shot', 1],
  ] as const) {
    const response = await pos.ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
      key: caller.key,
      body: { pos_item_id: posItemId, inventory_item_id: vodka.id, conversion_factor: ounces, conversion_unit: 'oz' },
    })
    assert.equal(response.statusCode, 201, response.body)
  }
  return { connection, vodka }
}

async function salesOf(connectionId: string) {
  return pos.ctx.database.db
    .selectFrom('pos_sales')
    .select(['line_id', 'quantity', 'sold_at', 'parent_line_id', 'corrects_line_id', 'corrected_at', 'depleted'])
    .where('connection_id', '=', connectionId)
    .orderBy('line_id')
    .execute()
}

const OZ_PER_BOTTLE = 750 / 29.5735295625

test('a modifier is a line of its own POS item, linked to its parent, and depletes its own mapping', async () => {
  const { connection, vodka } = await mappedVodka()
  const soldAt = new Date()
  script.lines = [line('L1', 'vodka-pour', '2', soldAt), line('L1:m0', 'extra-shot', '2', soldAt, { parentLineId: 'L1' })]
  assert.equal((await runSync(pos.ctx, caller, connection.id)).status, 'completed')

  const stored = await salesOf(connection.id)
  assert.deepEqual(
    stored.map((row) => [row.line_id, row.parent_line_id, row.depleted]),
    [
      ['L1', null, true],
      ['L1:m0', 'L1', true],
    ],
  )
  assert.equal(await itemQuantity(pos.ctx, caller, vodka.id), Number((10 - (2 * 1.5 + 2 * 1) / OZ_PER_BOTTLE).toFixed(4)))
})

test('a refund in a later run gives back from the day of the sale, as a movement of its own, once', async () => {
  const { connection, vodka } = await mappedVodka()
  const soldAt = new Date()
  script.lines = [line('L1', 'vodka-pour', '4', soldAt)]
  await runSync(pos.ctx, caller, connection.id)
  const afterSale = await itemQuantity(pos.ctx, caller, vodka.id)
  assert.equal(afterSale, Number((10 - 6 / OZ_PER_BOTTLE).toFixed(4)))

  const refundedAt = new Date()
  script.lines = [line('R1:L1', 'vodka-pour', '-1', refundedAt, { correctsLineId: 'L1' })]
  const refundRun = await runSync(pos.ctx, caller, connection.id)
  assert.equal(refundRun.status, 'completed')
  assert.equal(await itemQuantity(pos.ctx, caller, vodka.id), Number((afterSale + 1.5 / OZ_PER_BOTTLE).toFixed(4)))
  const correction = (await salesOf(connection.id)).find((row) => row.line_id === 'R1:L1')!
  assert.equal(Number(correction.quantity), -1)
  assert.equal(correction.sold_at.toISOString(), soldAt.toISOString(), 'dated to the sale it takes back')
  assert.equal(correction.corrected_at?.toISOString(), refundedAt.toISOString())
  const sales = (await ledgerOf(pos.ctx, vodka.id)).filter((row) => row.kind === 'sale')
  assert.deepEqual(
    sales.map((row) => [Number(Number(row.delta).toFixed(4)), row.occurred_at.toISOString()]),
    [
      [Number((-6 / OZ_PER_BOTTLE).toFixed(4)), soldAt.toISOString()],
      [Number((1.5 / OZ_PER_BOTTLE).toFixed(4)), soldAt.toISOString()],
    ],
  )

  // The vendor reports the same refund again: nothing changes.
  const replay = await runSync(pos.ctx, caller, connection.id)
  assert.equal(replay.status, 'completed')
  assert.equal(await itemQuantity(pos.ctx, caller, vodka.id), Number((afterSale + 1.5 / OZ_PER_BOTTLE).toFixed(4)))
  assert.equal((await ledgerOf(pos.ctx, vodka.id)).filter((row) => row.kind === 'sale').length, 2)
})

test('a correction that comes before its line waits for it, and the two net out when the line arrives', async () => {
  const { connection, vodka } = await mappedVodka()
  const soldAt = new Date()
  const voidedAt = new Date(soldAt.getTime() + 1)
  script.lines = [line('V1:L9', 'vodka-pour', '-2', voidedAt, { correctsLineId: 'L9' })]
  await runSync(pos.ctx, caller, connection.id)
  assert.equal(await itemQuantity(pos.ctx, caller, vodka.id), 10, 'a correction of a line never seen changes nothing yet')
  assert.deepEqual(await salesOf(connection.id), [])
  const waiting = await pos.ctx.database.db.selectFrom('pos_pending_corrections').select(['line_id', 'corrects_line_id']).where('connection_id', '=', connection.id).execute()
  assert.deepEqual(waiting, [{ line_id: 'V1:L9', corrects_line_id: 'L9' }])

  script.lines = [line('L9', 'vodka-pour', '2', soldAt), line('L10', 'vodka-pour', '1', soldAt)]
  await runSync(pos.ctx, caller, connection.id)
  assert.equal(await itemQuantity(pos.ctx, caller, vodka.id), Number((10 - 1.5 / OZ_PER_BOTTLE).toFixed(4)), 'only L10 stays sold')
  assert.deepEqual(
    (await salesOf(connection.id)).map((row) => [row.line_id, Number(row.quantity), row.sold_at.toISOString()]),
    [
      ['L10', 1, soldAt.toISOString()],
      ['L9', 2, soldAt.toISOString()],
      ['V1:L9', -2, soldAt.toISOString()],
    ],
  )
  const left = await pos.ctx.database.db.selectFrom('pos_pending_corrections').select('line_id').where('connection_id', '=', connection.id).execute()
  assert.deepEqual(left, [])
})

test('a refund of a line sold before the latest count is history: stock stays, the usage is taken back', async () => {
  const { connection, vodka } = await mappedVodka()
  const soldAt = new Date()
  script.lines = [line('L1', 'vodka-pour', '2', soldAt)]
  await runSync(pos.ctx, caller, connection.id)
  assert.equal(await itemQuantity(pos.ctx, caller, vodka.id), Number((10 - 3 / OZ_PER_BOTTLE).toFixed(4)))
  const count = await pos.ctx.request('POST', '/v1/inventory/count', {
    key: caller.key,
    body: { location: 'main_bar', counted_by: 'user_maria', items: [{ item_id: vodka.id, quantity: 9 }] },
  })
  assert.equal(count.statusCode, 201, count.body)

  script.lines = [line('R1:L1', 'vodka-pour', '-2', new Date(), { correctsLineId: 'L1' })]
  await runSync(pos.ctx, caller, connection.id)
  assert.equal(await itemQuantity(pos.ctx, caller, vodka.id), 9, 'the count already saw that bottle')
  const usage = await pos.ctx.database.db
    .selectFrom('stock_sale_usage')
    .select((eb) => eb.fn.sum<string>('units').as('units'))
    .where('item_id', '=', vodka.id)
    .executeTakeFirstOrThrow()
  assert.equal(Number(usage.units), 0, 'the sale and its refund net out for analytics')
})

test('a failed run takes back the corrections it left waiting', async () => {
  const { connection } = await mappedVodka()
  const refundedAt = new Date()
  // Enough lines for the run to store a batch before the vendor fails.
  script.lines = Array.from({ length: 5_000 }, (_, index) => line(`R${index}:L${index}`, 'vodka-pour', '-1', refundedAt, { correctsLineId: `L${index}` }))
  script.failAfterLines = true
  const run = await runSync(pos.ctx, caller, connection.id)
  assert.equal(run.status, 'failed')
  assert.equal(run.error.code, 'connection_failed')
  const waiting = await pos.ctx.database.db.selectFrom('pos_pending_corrections').select('line_id').where('connection_id', '=', connection.id).execute()
  assert.deepEqual(waiting, [])
})
