import assert from 'node:assert/strict'
import { type Caller, json, type TestContext } from '../helpers/context.js'
import { createConnection } from '../pos/pos-helpers.js'

export const DAY_MS = 86_400_000

/** A moment `days` days before now at `hour`:00 UTC. */
export function daysAgo(days: number, hour = 12): string {
  const at = new Date(Date.now() - days * DAY_MS)
  at.setUTCHours(hour, 0, 0, 0)
  return at.toISOString()
}

export function dateOf(timestamp: string): string {
  return timestamp.slice(0, 10)
}

/** A sandbox POS connection to import sales into, with helpers to map and sell through the API. */
export async function salesChannel(ctx: TestContext, caller: Caller) {
  const connection = await createConnection(ctx, caller)
  let line = 0
  return {
    connectionId: connection.id,
    async map(posItemId: string, body: Record<string, unknown>) {
      const response = await ctx.request('POST', `/v1/pos/connections/${connection.id}/mappings`, { key: caller.key, body: { pos_item_id: posItemId, ...body } })
      assert.equal(response.statusCode, 201, response.body)
    },
    async sell(lines: { pos_item_id: string; name: string; quantity: number; unit_price: number; sold_at: string; [field: string]: unknown }[]) {
      const sales = lines.map((sale) => ({ location: 'main_bar', line_id: `L${++line}`, ...sale }))
      const response = await ctx.request('POST', '/v1/sales', { key: caller.key, body: { connection_id: connection.id, sales } })
      assert.equal(response.statusCode, 201, response.body)
      return json(response).data
    },
  }
}

export async function count(ctx: TestContext, caller: Caller, items: { item_id: string; quantity: number }[], countedAt?: string, location = 'main_bar') {
  const response = await ctx.request('POST', '/v1/inventory/count', {
    key: caller.key,
    body: { location, counted_by: 'maria', items, ...(countedAt && { counted_at: countedAt }) },
  })
  assert.equal(response.statusCode, 201, response.body)
  return json(response).data
}
