/**
 * Inventory's front door: all that other rooms (and the wiring) may use of inventory. Functions are
 * named by intent and take their own locks; results are inventory's own types, never its table rows.
 */

// Items, as the API shows them and as other rooms read them.
export { type InventoryItem, type ItemStock, type ListItemsQuery, PastTime } from './inventory.schemas.js'
export { everyItem, everyItemStock, getItem, itemStocks, liveItemIdsAt, parseQuantity } from './inventory.service.js'
export {
  countItemsAtLocation,
  type DeliveryUnitCost,
  findStockItem,
  findStockItems,
  lastDeliveryUnitCosts,
  listItemsForMatching,
  type StockItem,
  stockItemsInCategories,
} from './item-reads.js'
export { CATEGORIES, isUnit, UNITS } from './units.js'
export { checkConversionUnit, convertibleUnits, implausibleUsage, ML_PER_US_FL_OZ, skuUnitsPer, stockUsed, toItemUnits } from './conversion.js'
export { inventoryErrors } from './inventory.errors.js'

// Stock changes other rooms ask for: each locks the items it changes.
export { type DeliveredLine, receiveDelivery } from './deliveries.js'
export { applySaleUsage, itemsDepletedAt, restateSaleUsage, type SaleUsageRow, withdrawSaleUsage } from './sale-usage.js'
export type { CountObserver, RecordedCount } from './counts.service.js'

// The stock history reports read (analytics).
export {
  COLUMNS_ROLLED_UP,
  crossLocationSaleLines,
  type HistorySpan,
  itemCostAt,
  itemCostOtherThanIn,
  itemCountLines,
  itemsCountedByWeight,
  itemsInScope,
  lineUsageInSpans,
  movementsInSpans,
  type ReportItem,
  saleUsageInSpan,
  type SpanMovement,
  usageOfSaleLines,
  wasteCostByItemAndReason,
} from './stock-history.js'
export { dailyUsage, firstLateUsages, firstUsageDays, type LateUsage, latestUsageSequence, type UsageWatermark } from './usage-history.js'

// For the wiring.
export { oldestHistoryInUse } from './archive-horizon.js'
export { inventoryRoutes } from './inventory.routes.js'
export { stockOperationRoutes } from './operations.routes.js'
export { inventoryEvents } from './inventory.events.js'
