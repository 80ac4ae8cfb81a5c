import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, test } from 'node:test'
import { clientTestFile, succeeded } from '../helpers/api-client.js'
import { eventually } from '../webhooks/support.js'
import { SQUARE_CREDENTIALS, startWorker } from '../pos/pos-helpers.js'

// A POS connection driven through the generated client against a listening server: connect a sandbox
// Square (its simulator), sync it with the real worker, review the mapping queue, import sales.

const file = clientTestFile({ env: { BARSTOCK_SECRET_KEY: randomBytes(32).toString('hex'), BARSTOCK_RATE_LIMIT_SANDBOX: '100000' } })

describe('POS through the client', () => {
  test('a sandbox Square is connected, synced, its items mapped and its sales imported', async (t) => {
    const worker = await startWorker(file.ctx)
    t.after(() => worker.stop())
    const api = await file.newClient({ environment: 'sandbox' })
    const beer = succeeded(
      await api.POST('/v1/inventory/items', {
        body: { name: 'Bud Light 12oz Bottle', sku: 'BUD-12', category: 'beer', quantity: 24, unit: 'bottle', size_ml: 355, location: 'main_bar' },
      }),
    ).data
    const created = await api.POST('/v1/pos/connections', {
      body: { pos_type: 'square', name: 'Front bar Square', credentials: SQUARE_CREDENTIALS, sync_frequency: 'daily', initial_sync: 'incremental' },
    })
    assert.equal(created.response.status, 201)
    const connection = succeeded(created).data
    const path = { params: { path: { id: connection.id } } }
    assert.deepEqual(
      succeeded(await api.GET('/v1/pos/connections')).data.map((listed) => listed.id),
      [connection.id],
    )

    // The create asked for a first sync; the worker runs it.
    const firstSyncId = connection.first_sync_id
    assert.ok(firstSyncId, 'initial_sync names its run')
    const run = await eventually(
      async () => {
        const current = succeeded(await api.GET('/v1/pos/syncs/{sync_id}', { params: { path: { sync_id: firstSyncId } } })).data
        return current.status !== 'processing' && current
      },
      240_000,
      'the first sync run to end',
    )
    assert.equal(run.status, 'completed', JSON.stringify(run.error))
    assert.ok(succeeded(await api.GET('/v1/pos/syncs', { params: { query: { connection_id: connection.id } } })).data.some((listed) => listed.sync_id === firstSyncId))

    const unmapped = succeeded(await api.GET('/v1/pos/connections/{id}/mappings', { ...path, params: { ...path.params, query: { mapped: false } } }))
    assert.ok(unmapped.pagination.total > 0, 'the sync lists the POS items to map')
    succeeded(await api.POST('/v1/pos/connections/{id}/auto-map', { ...path, body: {} }))

    const mapped = await api.POST('/v1/pos/connections/{id}/mappings', {
      ...path,
      body: { pos_item_id: 'PLU-200', inventory_item_id: beer.id, conversion_factor: 1, conversion_unit: 'bottle' },
    })
    assert.equal(mapped.response.status, 201)
    const imported = await api.POST('/v1/sales', {
      body: {
        connection_id: connection.id,
        sales: [{ line_id: 'a', location: 'main_bar', pos_item_id: 'PLU-200', name: 'Bud Light Btl', quantity: 2, unit_price: 6, sold_at: new Date().toISOString() }],
      },
    })
    assert.equal(succeeded(imported).data.imported, 1)
    assert.equal(succeeded(await api.GET('/v1/inventory/items/{id}', { params: { path: { id: beer.id } } })).data.quantity, 22)
  })
})
