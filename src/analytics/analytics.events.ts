import { type Static, Type } from 'typebox'
import type { EventDataOf } from '../platform/outbox.js'
import { StringEnum } from '../platform/http/types.js'
import { CAUSES } from './variance/variance-causes.js'

/** The analytics events of the spec's Events table: their exact `data` fields, as schemas (webhooks, OpenAPI). */
export const VarianceDetectedData = Type.Object(
  {
    item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
    name: Type.String({ description: 'The item’s name', examples: ["Tito's Handmade Vodka 750ml"] }),
    expected_consumption: Type.Number({ description: 'Mapped POS sales since the previous count, in the item’s unit', examples: [2.3659] }),
    actual_consumption: Type.Number({ description: 'Previous count + deliveries − this count, in the item’s unit', examples: [4] }),
    variance: Type.Number({ description: 'actual − expected, in the item’s unit; positive: more was used than sold (a loss)', examples: [1.6341] }),
    variance_percentage: Type.Number({ description: 'variance / expected × 100, in percent (100 when nothing was expected but some was used)', examples: [69.07] }),
    estimated_loss: Type.Number({ description: 'variance × the item’s cost in force at this count (the cost of its time), in the account currency', examples: [32.68] }),
    severity: StringEnum(['high', 'medium'] as const, {
      description: '`high` when |variance_percentage| is above twice the account’s variance_threshold, `medium` above it',
      examples: ['high'],
    }),
    potential_causes: Type.Array(StringEnum(CAUSES), {
      description: 'Likely causes, most likely first (GET /v1/analytics/variance gives their evidence)',
      examples: [['unmapped_sales', 'theft_or_breakage']],
    }),
  },
  { description: 'A count showed an item’s variance since its previous count above the account’s variance_threshold' },
)
export type VarianceDetectedData = Static<typeof VarianceDetectedData>

export const VarianceThresholdExceededData = Type.Object(
  {
    period: Type.String({
      description: 'From the earliest opening count’s date to the count’s date, as two ISO 8601 dates joined by /',
      examples: ['2026-11-15/2026-11-22'],
    }),
    variance_rate: Type.Number({ description: 'Σ variance cost / Σ expected cost × 100 over the counted items, in percent', examples: [7.42] }),
    threshold: Type.Number({ description: 'The account’s variance_threshold when the count was recorded, in percent', examples: [5] }),
    total_loss: Type.Number({ description: 'Σ estimated_loss of the counted items, in the account currency', examples: [186.4] }),
    location: Type.String({ description: 'The counted location id', examples: ['main_bar'] }),
  },
  { description: 'A count’s overall variance rate is above the account’s variance_threshold' },
)
export type VarianceThresholdExceededData = Static<typeof VarianceThresholdExceededData>

/** The analytics events by kind, in the spec's order: the composition root assembles every domain's. */
export const analyticsEvents = {
  'variance.detected': VarianceDetectedData,
  'variance.threshold_exceeded': VarianceThresholdExceededData,
}

declare module '../platform/outbox.js' {
  interface EventCatalog extends EventDataOf<typeof analyticsEvents> {}
}
