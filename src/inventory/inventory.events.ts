import { type Static, Type } from 'typebox'
import type { EventDataOf } from '../platform/outbox.js'

/** The inventory events of the spec's Events table: their exact `data` fields, as schemas (webhooks, OpenAPI). */
export const InventoryUpdatedData = Type.Object(
  {
    item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    name: Type.String({ description: 'The item’s name at the time of the change', examples: ["Tito's Handmade Vodka 750ml"] }),
    previous_quantity: Type.Number({ description: 'Stock before the change, in the item’s unit', examples: [12] }),
    new_quantity: Type.Number({ description: 'Stock after the change, in the item’s unit (below zero when sales outran the last count)', examples: [11.4] }),
    change: Type.Number({ description: 'new_quantity − previous_quantity, in the item’s unit', examples: [-0.6] }),
    location: Type.String({ description: 'The item’s location id', examples: ['main_bar'] }),
    updated_by: Type.String({
      description:
        'Who changed it: the API key id of the request, the counter’s name for a count, who received an order for a delivery, the POS connection id for POS sales, who moved a transfer or logged waste (the API key id for a void)',
      examples: ['key_01jd2x0k7m3n5p7q9r1s3t5v7w'],
    }),
  },
  { description: 'An item’s quantity changed (count, adjustment, batch, delivery, POS sales, transfer or recorded waste)' },
)
export type InventoryUpdatedData = Static<typeof InventoryUpdatedData>

export const InventoryLowStockData = Type.Object(
  {
    item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    name: Type.String({ description: 'The item’s name', examples: ["Tito's Handmade Vodka 750ml"] }),
    current_quantity: Type.Number({ description: 'Stock now, in the item’s unit', examples: [2] }),
    reorder_point: Type.Number({ description: 'The item’s reorder point, in the item’s unit', examples: [4] }),
    location: Type.String({ description: 'The item’s location id', examples: ['main_bar'] }),
    recommended_order: Type.Number({
      description:
        'The item’s par_level (without one: twice the reorder point) minus current_quantity, in the item’s unit, rounded up to whole cases when the item has a case size; 0 when stock is at or above par',
      examples: [6],
    }),
  },
  { description: 'An item fell below its reorder point (sent once when it crosses, not again until it has been back above)' },
)
export type InventoryLowStockData = Static<typeof InventoryLowStockData>

export const InventoryCountCompletedData = Type.Object(
  {
    count_id: Type.String({ description: 'The count (GET /v1/inventory/counts/{count_id})', examples: ['cnt_01jd3a9b8c7d6e5f4g3h2j1k0m'] }),
    location: Type.String({ description: 'The counted location id', examples: ['main_bar'] }),
    items_counted: Type.Integer({ description: 'Items in the count, 1 or more', minimum: 1, examples: [42] }),
    variance_detected: Type.Integer({ description: 'Counted items whose quantity differed from theoretical stock', minimum: 0, examples: [3] }),
    counted_by: Type.String({ description: 'Who counted, as given in the count', examples: ['Maria (closing shift)'] }),
  },
  { description: 'A physical count was recorded' },
)
export type InventoryCountCompletedData = Static<typeof InventoryCountCompletedData>

export const InventoryWasteRecordedData = Type.Object(
  {
    waste_id: Type.String({ description: 'The waste entry (GET /v1/inventory/waste/{id})', examples: ['wst_01jd3a9b8c7d6e5f4g3h2j1k0m'] }),
    location: Type.String({ description: 'Where it was wasted', examples: ['main_bar'] }),
    recorded_by: Type.String({ description: 'Who logged it', examples: ['Maria'] }),
    items: Type.Array(
      Type.Object({
        item_id: Type.String({ description: 'The wasted item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
        name: Type.String({ description: 'The item’s name', examples: ["Tito's Handmade Vodka 750ml"] }),
        quantity: Type.Number({ description: 'What left stock, in the item’s unit', examples: [0.0591] }),
        reason: Type.String({ description: 'spill, breakage, comp, staff_drink, spoilage, returned or other', examples: ['spill'] }),
        cost: Type.Number({ description: 'Its cost in the account currency, 2 decimals', examples: [1.09] }),
      }),
      { description: 'The wasted items' },
    ),
    total_cost: Type.Number({ description: 'Σ cost, 2 decimals', examples: [1.09] }),
  },
  { description: 'Waste was recorded (POST /v1/inventory/waste): spills, breakage, comps, staff drinks, spoilage, returns' },
)
export type InventoryWasteRecordedData = Static<typeof InventoryWasteRecordedData>

/** The inventory events by kind, in the spec's order (then the ones barstock adds): the composition root assembles every domain's. */
export const inventoryEvents = {
  'inventory.updated': InventoryUpdatedData,
  'inventory.low_stock': InventoryLowStockData,
  'inventory.count_completed': InventoryCountCompletedData,
  'inventory.waste_recorded': InventoryWasteRecordedData,
}

declare module '../platform/outbox.js' {
  interface EventCatalog extends EventDataOf<typeof inventoryEvents> {}
}
