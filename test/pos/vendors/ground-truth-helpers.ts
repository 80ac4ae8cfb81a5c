import assert from 'node:assert/strict'
import Big from 'big.js'
import { consumedUnits, menuEntry } from '../../../src/pos/simulation/bar-data.js'
import { type Caller, json, type TestContext } from '../../helpers/context.js'
import { createItem } from '../../helpers/inventory.js'

/** Maps each POS item the connection reported to an inventory item of its own (1 each, no stock): POS name → item id. */
export async function mapEveryPosItem(ctx: TestContext, caller: Caller, connectionId: string, prefix: string): Promise<Map<string, string>> {
  const posItems = json(await ctx.request('GET', `/v1/pos/connections/${connectionId}/mappings`, { key: caller.key, query: { per_page: '100' } })).data
  const itemByPosName = new Map<string, string>()
  for (const posItem of posItems as { pos_item_id: string; pos_name: string }[]) {
    const item = await createItem(ctx, caller, { name: `${prefix} ${posItem.pos_name}`, unit: 'each', size_ml: undefined, quantity: 0 })
    const mapped = await ctx.request('POST', `/v1/pos/connections/${connectionId}/mappings`, {
      key: caller.key,
      body: { pos_item_id: posItem.pos_item_id, inventory_item_id: item.id, conversion_factor: 1, conversion_unit: 'each' },
    })
    assert.equal(mapped.statusCode, 201, mapped.body)
    itemByPosName.set(posItem.pos_name, item.id)
  }
  return itemByPosName
}

/** Units taken off each mapped item's stock (items at 0 left out), to 4 decimals: POS name → units. */
export async function unitsTaken(ctx: TestContext, caller: Caller, items: Map<string, string>): Promise<Map<string, string>> {
  const taken = new Map<string, string>()
  for (const [posName, itemId] of items) {
    const stock = json(await ctx.request('GET', `/v1/inventory/items/${itemId}`, { key: caller.key })).data.quantity as number
    if (stock !== 0) taken.set(posName, new Big(stock).times(-1).toFixed(4))
  }
  return taken
}

/** What the simulated bar (seed, history from `start`) consumed up to `now`, by POS name, to 4 decimals (zeros left out). */
export function groundTruth(seed: number, start: Date, now: Date, historyDays: number): Map<string, string> {
  const truth = consumedUnits(seed, start, now, { now, historyDays, asOf: now })
  const expected = [...truth].map(([key, units]) => [menuEntry(key).name, new Big(units).toFixed(4)] as const)
  return new Map(expected.filter(([, units]) => units !== '0.0000'))
}
