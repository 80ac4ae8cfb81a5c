import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import type { ArchiveResult } from '../../src/cli/archive-command.js'
import { adminCommands } from '../../src/cli/commands.js'
import type { Environment } from '../../src/platform/db/database.js'
import { monthPartitions } from '../../src/platform/db/partitions.js'
import { PosGateway } from '../../src/pos/connections/pos-gateway.js'
import type { PosAdapter, PosCredentials, PosSaleLine, PosVendor } from '../../src/pos/vendors/adapter.js'
import { type Caller, json } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { createSyncedConnection, itemQuantity, ledgerOf, runSync, startSwitchableSquare, usePosFixture, waitForSync } from './pos-helpers.js'

/**
 * Sync runs meeting `barstock archive` (docs/operations.md, "Partitions and archive"): a correction of an
 * archived line is set aside instead of waiting forever, and an archive refuses the months a sync run is
 * still storing lines into.
 */

/** What the scripted vendor answers: its lines once (whatever the window), after waiting for `hold` if set. */
const script: { lines: PosSaleLine[]; hold: Promise<void> | undefined } = { lines: [], hold: undefined }

class ScriptedGateway extends PosGateway {
  override async adapterForRun(_vendor: PosVendor, _environment: Environment, _credentials: PosCredentials): Promise<PosAdapter> {
    return {
      async verify() {},
      async listProducts() {
        return [{ posItemId: 'vodka-pour', name: "Tito's Vodka 1.5oz", category: 'Spirits', sku: null, price: '8.00' }]
      },
      async *listSales() {
        const lines = script.lines.splice(0)
        if (lines.length > 0) yield lines
        await script.hold
      },
      async listStaff() {
        return []
      },
    }
  }
}

function line(lineId: string, quantity: string, soldAt: string, correctsLineId?: string): PosSaleLine {
  return {
    lineId,
    posItemId: 'vodka-pour',
    name: 'vodka-pour',
    quantity,
    unitPrice: '8.00',
    soldAt: new Date(soldAt),
    checkId: 'chk1',
    staffId: null,
    staffName: null,
    tip: null,
    correctsLineId,
  }
}

// A database of this file alone (a queue limit of its own opens one on PGlite; PostgreSQL gives every
// file a scratch database): archiving detaches partitions.
const pos = usePosFixture({ square: () => startSwitchableSquare(5) }, { gateway: (config) => new ScriptedGateway(config), env: { BARSTOCK_PGLITE_QUEUE_LIMIT: '998' } })
let caller: Caller

beforeEach(async () => {
  caller = await pos.ctx.newCaller({ environment: 'production' })
  script.lines = []
  script.hold = undefined
})

async function archive(beforeMonth: string): Promise<ArchiveResult> {
  return (await adminCommands(pos.ctx.database).archive!({ before: beforeMonth, drop: false, archiveAfterDays: 732 })) as ArchiveResult
}

/** A synced connection whose vodka pour (1.5 oz) takes from a bottle of vodka. */
async function mappedVodka() {
  const connection = await createSyncedConnection(pos.ctx, caller)
  await waitForSync(pos.ctx, caller, connection.first_sync_id)
  const vodka = await createItem(pos.ctx, caller, { name: "Tito's Handmade Vodka 750ml", unit: 'bottle', size_ml: 750, quantity: 10, category: 'spirits' })
  const response = await pos.ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, {
    key: caller.key,
    body: { pos_item_id: 'vodka-pour', inventory_item_id: vodka.id, conversion_factor: 1.5, conversion_unit: 'oz' },
  })
  assert.equal(response.statusCode, 201, response.body)
  return { connection, vodka }
}

async function storedLines(connectionId: string): Promise<number> {
  const row = await pos.ctx.database.db
    .selectFrom('pos_sales')
    .select((eb) => eb.fn.countAll<string>().as('lines'))
    .where('connection_id', '=', connectionId)
    .executeTakeFirstOrThrow()
  return Number(row.lines)
}

async function waitingCorrections(connectionId: string): Promise<string[]> {
  const rows = await pos.ctx.database.db.selectFrom('pos_pending_corrections').select('line_id').where('connection_id', '=', connectionId).execute()
  return rows.map((row) => row.line_id)
}

test('archive refuses the months a sync run is still storing lines into, and archives them once the run has completed', async () => {
  const { connection } = await mappedVodka()
  let release = () => {}
  script.hold = new Promise((resolve) => {
    release = resolve
  })
  // Enough lines for the run to store a batch before its listing ends (it stages 5,000 at a time).
  script.lines = Array.from({ length: 5_000 }, (_, index) => line(`OLD${index}`, '1', '2020-01-10T21:00:00Z'))
  const started = await pos.ctx.request('POST', `/v1/pos/connections/${connection.id}/sync`, { key: caller.key, body: { sync_type: 'incremental' } })
  assert.equal(started.statusCode, 201, started.body)
  const syncId = json(started).data.sync_id as string
  for (let waited = 0; (await storedLines(connection.id)) < 5_000; waited += 50) {
    assert.ok(waited < 120_000, 'the run stored its lines')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }

  const partitionsBefore = await monthPartitions(pos.ctx.database.db)
  await assert.rejects(
    archive('2021-01'),
    new RegExp(
      `^Error: --before 2021-01 would archive sale lines that sync run ${syncId} \\(connection ${connection.id}\\) is still storing, sold from 2020-01-10T21:00:00.000Z: archive again once it has completed or failed`,
    ),
  )
  assert.deepEqual(await monthPartitions(pos.ctx.database.db), partitionsBefore, 'nothing detached')
  assert.equal(await storedLines(connection.id), 5_000)

  release()
  const run = await waitForSync(pos.ctx, caller, syncId)
  assert.equal(run.status, 'completed')
  assert.equal(run.results.sales_synced, 5_000)
  const archived = await archive('2021-01')
  assert.ok(
    archived.partitions.some((part) => part.table === 'pos_sales' && part.month === '2020-01'),
    JSON.stringify(archived),
  )
})

test('a correction of an archived line is set aside: it does not wait, changes no stock, and a re-send is a duplicate', async () => {
  const { connection, vodka } = await mappedVodka()
  script.lines = [line('A1', '2', '2019-06-14T21:00:00Z')]
  assert.equal((await runSync(pos.ctx, caller, connection.id)).results.sales_synced, 1)
  await archive('2021-01')
  assert.equal(await storedLines(connection.id), 0, 'the line is archived')
  const stock = await itemQuantity(pos.ctx, caller, vodka.id)
  const ledger = await ledgerOf(pos.ctx, vodka.id)

  script.lines = [line('R1:A1', '-2', '2026-11-20T21:00:00Z', 'A1')]
  const refund = await runSync(pos.ctx, caller, connection.id)
  assert.equal(refund.status, 'completed')
  assert.equal(refund.results.sales_synced, 0)
  assert.deepEqual(await waitingCorrections(connection.id), [], 'not left waiting')
  assert.equal(await storedLines(connection.id), 0)
  assert.equal(await itemQuantity(pos.ctx, caller, vodka.id), stock)
  assert.deepEqual(await ledgerOf(pos.ctx, vodka.id), ledger)

  script.lines = [line('R1:A1', '-2', '2026-11-20T21:00:00Z', 'A1')]
  const again = await runSync(pos.ctx, caller, connection.id)
  assert.equal(again.status, 'completed')
  assert.deepEqual(await waitingCorrections(connection.id), [], 'a re-send is a duplicate, never staged')

  // A correction whose line was never stored still waits for it.
  script.lines = [line('R2:A2', '-1', '2026-11-20T21:00:00Z', 'A2')]
  await runSync(pos.ctx, caller, connection.id)
  assert.deepEqual(await waitingCorrections(connection.id), ['R2:A2'])
})
