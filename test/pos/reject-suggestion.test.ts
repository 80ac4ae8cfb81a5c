import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { createItem } from '../helpers/inventory.js'
import { daysAgo, salesChannel } from '../analytics/analytics-helpers.js'
import { createPosTestContext } from './pos-helpers.js'

let ctx: TestContext
before(async () => {
  ctx = await createPosTestContext()
})
after(() => ctx.close())

/** A connection whose one POS item ("Titos Vodka Dbl") auto-map left as a suggestion for review. */
async function suggested(caller: Caller) {
  const titos = await createItem(ctx, caller, { name: 'Tito’s Handmade Vodka 1L', size_ml: 1000 })
  const channel = await salesChannel(ctx, caller)
  await channel.sell([{ pos_item_id: 'TITO-DBL', name: 'Titos Vodka Dbl', quantity: 2, unit_price: 14, sold_at: daysAgo(1) }])
  const mapped = await autoMap(caller, channel.connectionId)
  assert.equal(mapped.mappings_review, 1)
  return { connectionId: channel.connectionId, titos }
}

async function autoMap(caller: Caller, connectionId: string) {
  const response = await ctx.request('POST', `/v1/pos/connections/${connectionId}/auto-map`, { key: caller.key, body: { confidence_threshold: 1 } })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).data
}

async function posItems(caller: Caller, connectionId: string) {
  return json(await ctx.request('GET', `/v1/pos/connections/${connectionId}/mappings`, { key: caller.key })).data
}

describe('DELETE /v1/pos/connections/:id/mappings/:pos_item_id/suggestion', () => {
  test('takes the suggestion out of the review queue, and auto-map never suggests that item again', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { connectionId, titos } = await suggested(caller)
    const response = await ctx.request('DELETE', `/v1/pos/connections/${connectionId}/mappings/TITO-DBL/suggestion`, { key: caller.key })
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(json(response).data, { pos_item_id: 'TITO-DBL', rejected_item_id: titos.id })
    assert.equal((await posItems(caller, connectionId))[0].suggestion, null)
    const again = await autoMap(caller, connectionId)
    assert.deepEqual([again.mappings_created, again.mappings_review, again.unmapped_items], [0, 0, 1])
    assert.equal((await posItems(caller, connectionId))[0].suggestion, null)
  })

  test('answers 404 mapping_not_found when the POS item has no suggestion, and changes nothing', async () => {
    const caller = await ctx.newCaller({ environment: 'sandbox' })
    const { connectionId } = await suggested(caller)
    const reject = (posItemId: string) => ctx.request('DELETE', `/v1/pos/connections/${connectionId}/mappings/${posItemId}/suggestion`, { key: caller.key })
    const before = await posItems(caller, connectionId)
    const unknown = await reject('NOT-SOLD')
    assert.equal(unknown.statusCode, 404)
    assert.equal(json(unknown).error.code, 'mapping_not_found')
    assert.deepEqual(await posItems(caller, connectionId), before)
    assert.equal((await reject('TITO-DBL')).statusCode, 200)
    const twice = await reject('TITO-DBL')
    assert.equal(twice.statusCode, 404)
    assert.equal(json(twice).error.code, 'mapping_not_found')
  })
})
