import { sql } from 'kysely'
import type { TestContext, Caller } from './context.js'
import { json } from './context.js'

let skuCounter = 0

/** Creates an item through the API and returns it; fields override a plausible default bottle. */
export async function createItem(ctx: TestContext, caller: Caller, fields: Record<string, unknown> = {}) {
  const response = await ctx.request('POST', '/v1/inventory/items', {
    key: caller.key,
    body: {
      name: 'Tito’s Handmade Vodka 750ml',
      sku: `SKU-${process.pid}-${++skuCounter}`,
      category: 'spirits',
      quantity: 10,
      unit: 'bottle',
      size_ml: 750,
      location: 'main_bar',
      reorder_point: 4,
      cost_per_unit: 18.5,
      ...fields,
    },
  })
  if (response.statusCode !== 201) throw new Error(`item create failed: ${response.statusCode} ${response.body}`)
  return json(response).data as { id: string; quantity: number; sku: string; name: string; [key: string]: unknown }
}

/** Adds locations (id, name the same) to the caller's account through the API, beside main_bar. */
export async function createLocations(ctx: TestContext, caller: Caller, ids: string[]) {
  for (const id of ids) {
    const response = await ctx.request('POST', '/v1/locations', { key: caller.key, body: { id, name: id } })
    if (response.statusCode !== 201) throw new Error(`location create failed: ${response.statusCode} ${response.body}`)
  }
}

/** Holds the item's row lock in a transaction of its own until `release` is called; `done` settles when it ends. */
export async function holdItemLock(ctx: TestContext, itemId: string): Promise<{ release: () => void; done: Promise<void> }> {
  let release!: () => void
  let locked!: () => void
  const held = new Promise<void>((resolve) => (locked = resolve))
  const done = ctx.database.db.transaction().execute(async (trx) => {
    await sql`SELECT id FROM inventory_items WHERE id = ${itemId} FOR UPDATE`.execute(trx)
    locked()
    await new Promise<void>((resolve) => (release = resolve))
  })
  await held
  return { release, done }
}
