import { type Static, Type } from 'typebox'
import { CATEGORIES } from '../../inventory/index.js'
import { StringEnum } from '../../platform/http/types.js'
import { CAUSES } from './variance-causes.js'

const REPORT_DATE =
  'A business date, YYYY-MM-DD, 1900-01-01 to 9998-12-31 (an ISO 8601 timestamp is read as the date it names); both ends inclusive, in each location’s own business days'
export const ReportDate = (defaultText: string) => Type.String({ description: `${REPORT_DATE}. Default: ${defaultText}`, examples: ['2026-11-01'] })

export const VarianceQuery = Type.Object(
  {
    date_from: Type.Optional(ReportDate('30 days before date_to')),
    date_to: Type.Optional(ReportDate('today (UTC)')),
    location: Type.Optional(Type.String({ description: 'Only items stored at this location', examples: ['main_bar'] })),
    category: Type.Optional(StringEnum(CATEGORIES, { description: 'Only items of this inventory category' })),
    threshold: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1000,
        description: 'Variance percentage above which an item counts as above threshold, 0 to 1,000; default: the settings’ variance_threshold (5)',
        examples: [5],
      }),
    ),
  },
  { additionalProperties: false },
)
export type VarianceQuery = Static<typeof VarianceQuery>

const Quantity = (description: string) => Type.Number({ description })

export const CauseEvidence = Type.Object({
  cause: StringEnum(CAUSES, { description: 'A code of the cause vocabulary (docs/analytics.md)' }),
  confidence: Type.Number({ minimum: 0, maximum: 1, description: 'How strongly the numbers support this cause, 0 to 1' }),
  evidence: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()]), { description: 'The numbers behind the cause' }),
})

export const VarianceWindow = Type.Object(
  {
    opening_count_id: Type.String({
      description: 'The count that opens the window: the item’s latest count at or before the start of date_from',
      examples: ['cnt_01jd3n0a1b2c3d4e5f6g7h8j9k'],
    }),
    opening_counted_at: Type.String({ format: 'date-time', description: 'When that count was taken', examples: ['2026-11-12T12:00:00.000Z'] }),
    opening: Quantity('Counted at the opening count, item units'),
    deliveries: Quantity('Received inside the window, item units'),
    closing: Quantity('Counted at the closing count, item units'),
    closing_count_id: Type.String({
      description: 'The count that closes the window: the item’s latest count up to the end of date_to',
      examples: ['cnt_01jd3n9z8y7x6w5v4t3s2r1q0p'],
    }),
    closing_counted_at: Type.String({ format: 'date-time', description: 'When that count was taken', examples: ['2026-11-19T12:00:00.000Z'] }),
    sales_units: Quantity('Item units the window’s mapped sales used (the expected consumption)'),
    sale_lines: Type.Integer({ description: 'Mapped sale lines in the window' }),
    transfers_in: Quantity('Moved into the item from other locations inside the window, item units (voided transfers left out)'),
    transfers_out: Quantity('Moved out of the item to other locations inside the window, item units'),
    recorded_waste: Quantity('Waste recorded inside the window (spills, breakage, comps, …), item units: usage explained apart from sales'),
    recorded_waste_cost: Type.Number({ description: 'Its cost at the costs of the time it was recorded, account currency' }),
  },
  { description: 'The count window the item’s figures come from' },
)

export const VarianceItem = Type.Object({
  inventory_item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd3mz0v8q5f7k2n9x4c6w1ab'] }),
  name: Type.String({ description: 'Its name', examples: ["Tito's Handmade Vodka 750ml"] }),
  location: Type.String({ description: 'Its location id', examples: ['main_bar'] }),
  unit: Type.String({ description: 'The item unit of every quantity of this entry' }),
  expected_consumption: Quantity('Σ mapped sales in the window, converted to item units'),
  actual_consumption: Quantity('opening + deliveries + transfers in − transfers out − closing'),
  variance: Quantity('actual − expected − recorded waste; positive: more was used than sold or logged as waste (a loss)'),
  variance_percentage: Type.Number({ description: 'variance / expected × 100 (100 when nothing was expected but some was used)' }),
  estimated_loss: Type.Number({
    description:
      'variance × the cost in force at the window’s closing count, never revalued at today’s cost (a window over several counts in which the cost changed: Σ of its parts, each at the cost at its own closing count; docs/analytics.md, Costs of their time), in the account currency (recorded waste is not in it: see recorded_waste_cost)',
  }),
  recorded_waste_cost: Type.Number({ description: 'The cost of the waste recorded in the window (the same as window.recorded_waste_cost), account currency' }),
  potential_causes: Type.Array(StringEnum(CAUSES), { description: 'Most likely first; empty within the threshold' }),
  cause_evidence: Type.Array(CauseEvidence, { description: 'Every cause the numbers support, with its confidence and evidence, most likely first' }),
  window: VarianceWindow,
})

export const UnmappedPosItem = Type.Object({
  connection_id: Type.String({ description: 'The POS connection', examples: ['pos_01jd3kq7w2e4r6t8y0u2i4o6p8'] }),
  pos_item_id: Type.String({ description: 'The POS’s id of the unmapped item', examples: ['TITO-DBL'] }),
  name: Type.String({ description: 'Its POS name', examples: ["Tito's Vodka Dbl"] }),
  revenue: Type.Number({ description: 'Revenue of its lines in the period, account currency' }),
})

export const DataQuality = Type.Object(
  {
    mapped_revenue_share: Type.Number({
      description: 'Share (0–1) of the period’s POS revenue at the locations in scope whose lines are mapped; the rest is not in expected consumption',
    }),
    items_counted_share: Type.Number({ description: 'Share (0–1) of the items in scope with two counts to measure between' }),
    items_without_counts: Type.Integer({ description: 'Items in scope left out of `items` for lack of two counts' }),
    stale_count_items: Type.Integer({ description: 'Items whose latest count is over 14 days before the end of the period' }),
    items_counted_by_weight: Type.Integer({ description: 'Items of `items` whose closing count weighed open containers (weight_g or weights_g on the count line)' }),
    items_counted_by_eye: Type.Integer({
      description: 'Items of `items` whose closing count gave quantity alone (open containers estimated, e.g. in tenths); with items_counted_by_weight, every item of `items`',
    }),
    unmapped_pos_items: Type.Array(UnmappedPosItem, { description: 'The 10 unmapped POS items with the most revenue in the period' }),
    cross_location_lines: Type.Integer({
      description:
        'Sale lines of the period that depleted an item in scope at another location than their own: sold where no item of the SKU is stocked, they took the mapped item (a line sold where the SKU is stocked depletes that location’s item)',
    }),
  },
  { description: 'How far the report can be trusted: unmapped sales and missing counts make variance look worse or better than it is' },
)

const VARIANCE_EXAMPLE = {
  period: '2026-11-12/2026-11-19',
  threshold: 5,
  currency: 'USD',
  total_variance: 32.68,
  variance_percentage: 69.07,
  items: [
    {
      inventory_item_id: 'item_01jd3mz0v8q5f7k2n9x4c6w1ab',
      name: "Tito's Handmade Vodka 750ml",
      location: 'main_bar',
      unit: 'bottle',
      expected_consumption: 2.3659,
      actual_consumption: 4,
      variance: 1.6341,
      variance_percentage: 69.07,
      estimated_loss: 32.68,
      potential_causes: ['unmapped_sales', 'theft_or_breakage'],
      cause_evidence: [
        { cause: 'unmapped_sales', confidence: 0.93, evidence: { unmapped_items: 1, unmapped_units: 1.66, explained_share: 1.01 } },
        { cause: 'theft_or_breakage', confidence: 0.31, evidence: { variance_percentage: 69.07, loss_units: 1.63 } },
      ],
      window: {
        opening_count_id: 'cnt_01jd3n0a1b2c3d4e5f6g7h8j9k',
        opening_counted_at: '2026-11-12T12:00:00.000Z',
        opening: 12,
        deliveries: 0,
        closing: 8,
        closing_count_id: 'cnt_01jd3n9z8y7x6w5v4t3s2r1q0p',
        closing_counted_at: '2026-11-19T12:00:00.000Z',
        sales_units: 2.3659,
        sale_lines: 40,
        transfers_in: 0,
        transfers_out: 0,
        recorded_waste: 0,
        recorded_waste_cost: 0,
      },
      recorded_waste_cost: 0,
    },
  ],
  period_measured: { from: '2026-11-12T12:00:00.000Z', to: '2026-11-19T12:00:00.000Z' },
  summary: {
    total_items_analyzed: 1,
    items_above_threshold: 1,
    high_variance_items: 1,
    gross_loss: 32.68,
    gross_gain: 0,
    gross_loss_percentage: 69.07,
    recorded_waste_cost: 0,
    waste_by_reason: {},
  },
  data_quality: {
    mapped_revenue_share: 0.6202,
    items_counted_share: 0.5,
    items_without_counts: 1,
    stale_count_items: 0,
    items_counted_by_weight: 0,
    items_counted_by_eye: 1,
    unmapped_pos_items: [{ connection_id: 'pos_01jd3kq7w2e4r6t8y0u2i4o6p8', pos_item_id: 'TITO-DBL', name: "Tito's Vodka Dbl", revenue: 196 }],
    cross_location_lines: 0,
  },
}

export const VarianceReport = Type.Object(
  {
    period: Type.String({ description: 'date_from/date_to', examples: ['2026-10-23/2026-11-22'] }),
    period_measured: Type.Object(
      {
        from: Type.String({ format: 'date-time', description: 'The earliest opening count of the windows used' }),
        to: Type.String({ format: 'date-time', description: 'The latest closing count of the windows used' }),
      },
      { description: 'What the report measured: windows run between counts, so they may start before date_from and end before date_to' },
    ),
    threshold: Type.Number({ description: 'The threshold the report applied, percent' }),
    currency: Type.String({ description: 'Currency of every money amount (settings)' }),
    total_variance: Type.Number({ description: 'Σ estimated_loss, account currency' }),
    variance_percentage: Type.Number({ description: 'Σ variance cost / Σ expected cost × 100' }),
    items: Type.Array(VarianceItem, { description: 'Items with two counts, largest absolute loss first' }),
    summary: Type.Object(
      {
        total_items_analyzed: Type.Integer({ description: 'Items with two counts in the period (the entries of items)' }),
        items_above_threshold: Type.Integer({ description: '|variance_percentage| > threshold' }),
        high_variance_items: Type.Integer({ description: '|variance_percentage| > 2 × threshold' }),
        gross_loss: Type.Number({ description: 'Σ of the positive estimated_loss (items that lost stock), account currency: the net total_variance lets gains hide losses' }),
        gross_gain: Type.Number({
          description:
            'Σ of the negative estimated_loss as a positive amount (items with more stock than explained: a count or a delivery nobody recorded to check), account currency',
        }),
        gross_loss_percentage: Type.Number({ description: 'gross_loss ÷ Σ expected cost × 100: what the alert (variance.threshold_exceeded) compares with the threshold' }),
        recorded_waste_cost: Type.Number({ description: 'Σ cost of the waste recorded in the items’ windows, account currency: explained usage, not in total_variance' }),
        waste_by_reason: Type.Record(Type.String(), Type.Number(), {
          description: 'That cost by reason (spill, breakage, comp, staff_drink, spoilage, returned, other); reasons without waste are absent',
          examples: [{ spill: 12.4, breakage: 21 }],
        }),
      },
      { description: 'How many items were analysed and flagged, and the waste that explains part of the usage' },
    ),
    data_quality: DataQuality,
  },
  { examples: [VARIANCE_EXAMPLE] },
)
export type VarianceReport = Static<typeof VarianceReport>
export type VarianceItem = Static<typeof VarianceItem>
