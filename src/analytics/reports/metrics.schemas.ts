import { type Static, Type } from 'typebox'
import { CATEGORIES } from '../../inventory/index.js'
import { Nullable, PageQuery, Timestamp } from '../../platform/http/schemas.js'
import { StringEnum } from '../../platform/http/types.js'
import { ReportDate } from '../variance/variance.schemas.js'

/** Schemas of the performance, staff and category reports; formulas with worked examples in docs/metrics.md. */

const periodQuery = {
  date_from: Type.Optional(ReportDate('30 days before date_to')),
  date_to: Type.Optional(ReportDate('today (UTC)')),
}

export const PerformanceQuery = Type.Object(
  {
    ...periodQuery,
    location: Type.Optional(Type.String({ description: 'Only sales at and items stored at this location (404 location_not_found when there is none)', examples: ['main_bar'] })),
  },
  { additionalProperties: false },
)
export type PerformanceQuery = Static<typeof PerformanceQuery>

export const METRIC_STATUSES = ['on_target', 'above_target', 'below_target', 'no_data'] as const
export const TRENDS = ['increasing', 'decreasing', 'stable'] as const

const Metric = (description: string, unit: string, example: { value: number; target: number; status: (typeof METRIC_STATUSES)[number] }) =>
  Type.Object(
    {
      value: Nullable(Type.Number({ description: `${description}; ${unit}, 2 decimals; null when the period holds no data for it` })),
      target: Type.Number({ description: `The settings’ target (PUT /v1/settings), ${unit}` }),
      status: StringEnum(METRIC_STATUSES, {
        description: 'on_target: within 5 % of the target (|value − target| ≤ 0.05 × target); above_target / below_target: the value is higher / lower; no_data: value is null',
      }),
    },
    { description, examples: [example] },
  )

const Trend = (metric: string) =>
  StringEnum(TRENDS, {
    description: `${metric} against the previous period of the same length: stable when it moved by less than 5 % of the previous value (or either period has no value), else increasing or decreasing`,
    examples: ['stable'],
  })

export const PerformanceReport = Type.Object({
  period: Type.String({ description: 'date_from/date_to', examples: ['2026-10-23/2026-11-22'] }),
  previous_period: Type.String({ description: 'The period the trends compare with: the same number of days just before', examples: ['2026-09-22/2026-10-22'] }),
  location: Type.String({ description: 'The location filter, or `all`', examples: ['main_bar'] }),
  currency: Type.String({ description: 'Currency of the settings (the money the costs and revenue behind the percentages are in)', examples: ['USD'] }),
  metrics: Type.Object(
    {
      pour_cost: Metric(
        'Cost of expected usage of the mapped sale lines sold in the period (units × the unit cost stored with each line’s usage: the item’s cost in force when the line was sold) / their revenue × 100',
        'percent',
        { value: 21.4, target: 20, status: 'above_target' },
      ),
      variance_rate: Metric(
        'Σ variance cost / Σ expected cost × 100 over the items’ count windows, as the variance report’s variance_percentage. A negative rate (status below_target) is not good news: more stock was counted than sales and deliveries explain, a gain to check (a delivery or a count nobody recorded, a sale mapped to the wrong item)',
        'percent',
        {
          value: 2.9,
          target: 3,
          status: 'on_target',
        },
      ),
      inventory_turnover: Metric(
        'Σ per item (cost of actual usage × 30 / window days) / Σ per item ((opening × the cost at the opening count + closing × the cost at the closing count) / 2), over the items’ count windows, at the costs of their time',
        'turns per 30 days',
        { value: 3.6, target: 4, status: 'below_target' },
      ),
      gross_margin: Metric('(revenue − cost of expected usage) / revenue × 100, over the mapped sale lines sold in the period', 'percent', {
        value: 78.6,
        target: 75,
        status: 'above_target',
      }),
    },
    { description: 'Each metric with its target and where it stands' },
  ),
  trends: Type.Object(
    {
      pour_cost: Trend('pour_cost'),
      variance_rate: Trend('variance_rate'),
      inventory_turnover: Trend('inventory_turnover'),
      gross_margin: Trend('gross_margin'),
    },
    { description: 'How each metric moved against the previous period' },
  ),
})
export type PerformanceReport = Static<typeof PerformanceReport>

export const StaffQuery = Type.Object(
  {
    ...PageQuery,
    ...periodQuery,
    staff_id: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'One staff member, as the POS identifies them (404 staff_not_found when no POS employee or sale line has this id)',
        examples: ['emp_042'],
      }),
    ),
  },
  { additionalProperties: false },
)
export type StaffQuery = Static<typeof StaffQuery>

export const PERFORMANCE_RATINGS = ['excellent', 'good', 'average', 'needs_attention'] as const

export const StaffPerformance = Type.Object(
  {
    staff_id: Type.String({ description: 'The POS’s staff id (the same id on two connections is one member)' }),
    name: Nullable(Type.String({ description: 'Personal data. From the POS’s employee list, else the staff_name of the member’s latest sale line; null when neither has one' })),
    role: Nullable(Type.String({ description: 'From the POS’s employee list; null for a member seen only on sale lines' })),
    metrics: Type.Object(
      {
        variance_rate: Type.Number({
          description:
            'Percent, 2 decimals: Σ over the item count windows inside the period that carry variance (the consecutive windows between each item’s counts, weekly counts making four in a month; not those a transfer or recorded waste explains, see rating_evidence) of the window’s variance cost × the member’s share of the item’s sold units in it, / the member’s expected usage cost in those windows × 100; 0 when the member sold no mapped item inside such a window. Negative: a gain to check (a count or a delivery nobody recorded), not a good pour',
        }),
        drinks_served: Type.Integer({ description: 'Σ quantity of the member’s sale lines in the period, mapped or not, rounded half up to a whole number' }),
        average_ticket: Type.Number({
          description: 'Revenue of the member’s lines / distinct checks, account currency, 2 decimals; a line without check_id is a check of its own',
        }),
        customer_satisfaction: Nullable(
          Type.Number({ description: 'Percent, 2 decimals: Σ tips / revenue × 100 over the member’s lines whose POS reported a tip (0 included); null when none did' }),
        ),
      },
      { description: 'The member’s figures for the period' },
    ),
    comparison: Type.Object(
      {
        variance_rate_vs_avg: Type.Number({ description: 'variance_rate − the mean variance_rate of every member in the period, percentage points, 2 decimals' }),
        drinks_served_vs_avg: Type.Number({ description: 'drinks_served − the mean drinks_served of every member in the period, drinks, 2 decimals' }),
        performance_rating: StringEnum(PERFORMANCE_RATINGS, {
          description:
            'From |variance_rate| against the settings’ variance_rate target T and drinks_served against the mean: needs_attention above 2 × T, or when the loss of one item follows the member (in rating_evidence.by_item: variance_rate above 2 × T in at least 2 windows_counted and above others_variance_rate, or nobody else sold it); otherwise excellent at most T with drinks at or above the mean; good at most T with fewer drinks, or at most 2 × T with drinks at or above the mean; average otherwise',
        }),
        rating_evidence: Type.Object(
          {
            items: Type.Integer({ description: 'Items the member sold inside their count windows: the items whose variance the member shares' }),
            windows: Type.Integer({ description: 'Item count windows in which the member sold and that carry variance' }),
            windows_explained: Type.Integer({
              description:
                'Item count windows in which the member sold that carry no variance: a gain and a loss in two consecutive windows of an item, the smaller at least half the larger, one of them holding a transfer or recorded waste (a move entered on the wrong side of a count)',
            }),
            sales_share_percentage: Type.Number({
              description: 'The member’s expected usage cost / the expected usage cost of the windows counted in `windows` × 100, 2 decimals: the member’s share of their sales',
            }),
            variance_cost: Type.Number({
              description: 'Σ the windows’ variance cost (net of recorded waste and transfers, as the variance report) × the member’s share of each, account currency, 2 decimals',
            }),
            expected_cost: Type.Number({
              description: 'The member’s expected usage cost in those windows, account currency, 2 decimals: variance_rate = variance_cost / expected_cost × 100',
            }),
            by_item: Type.Array(
              Type.Object({
                item_id: Type.String({ description: 'The inventory item' }),
                name: Type.String({ description: 'Its name' }),
                location: Type.String({ description: 'Its location id' }),
                windows: Type.Array(
                  Type.Object({
                    opened_at: { ...Timestamp, description: 'The window’s opening count time' },
                    closed_at: { ...Timestamp, description: 'Its closing count time' },
                    sales_share_percentage: Type.Number({ description: 'The member’s units sold in the window / all units sold of the item in it × 100, 2 decimals' }),
                    variance_cost: Type.Number({ description: 'The window’s variance cost × that share, account currency, 2 decimals; 0 when explained' }),
                    explained: Type.Boolean({ description: 'A transfer or recorded waste explains its variance (see windows_explained): it carries none' }),
                  }),
                  { description: 'The item’s count windows in which the member sold, oldest first' },
                ),
                windows_counted: Type.Integer({ description: 'Of those, the windows that carry variance' }),
                sales_share_percentage: Type.Number({ description: 'The member’s expected cost of the item / the item’s expected cost in the counted windows × 100, 2 decimals' }),
                variance_cost: Type.Number({ description: 'The member’s share of the item’s variance cost in the counted windows, account currency, 2 decimals' }),
                expected_cost: Type.Number({ description: 'The member’s expected cost of the item in them, account currency, 2 decimals' }),
                variance_rate: Type.Number({ description: 'variance_cost / expected_cost × 100, percent, 2 decimals' }),
                others_variance_rate: Nullable(
                  Type.Number({
                    description:
                      'The same rate for everyone else’s sales of the item (other members and lines without a staff id) over all its counted windows in the period, percent, 2 decimals; null when nobody else sold it. Sharing by sales gives a member more of the windows in which they sold more, so a loss that follows one member is above the others’ rate for them alone',
                  }),
                ),
              }),
              { description: 'Per item the member sold in a count window, largest variance_cost first: the items, windows and shares behind the rating' },
            ),
          },
          { description: 'The numbers behind variance_rate and so behind performance_rating' },
        ),
      },
      { description: 'The member against the team’s mean' },
    ),
  },
  {
    examples: [
      {
        staff_id: 'emp_042',
        name: 'Jordan Lee',
        role: 'Bartender',
        metrics: { variance_rate: 2.4, drinks_served: 612, average_ticket: 38.5, customer_satisfaction: 18.2 },
        comparison: {
          variance_rate_vs_avg: -0.6,
          drinks_served_vs_avg: 84.5,
          performance_rating: 'excellent',
          rating_evidence: {
            items: 14,
            windows: 18,
            windows_explained: 2,
            sales_share_percentage: 31.2,
            variance_cost: 41.6,
            expected_cost: 1733.4,
            by_item: [
              {
                item_id: 'item_01jd2x3v4w5y6z7a8b9c0d1e2f',
                name: 'Tito’s Handmade Vodka 750ml',
                location: 'main_bar',
                windows: [
                  { opened_at: '2026-10-30T10:00:00.000Z', closed_at: '2026-11-06T10:00:00.000Z', sales_share_percentage: 40, variance_cost: 3.1, explained: false },
                  { opened_at: '2026-11-06T10:00:00.000Z', closed_at: '2026-11-13T10:00:00.000Z', sales_share_percentage: 25, variance_cost: 0, explained: true },
                ],
                windows_counted: 1,
                sales_share_percentage: 40,
                variance_cost: 3.1,
                expected_cost: 96,
                variance_rate: 3.23,
                others_variance_rate: 3.23,
              },
            ],
          },
        },
      },
    ],
  },
)
export type StaffPerformance = Static<typeof StaffPerformance>

export const CategoriesQuery = Type.Object({ ...PageQuery, ...periodQuery }, { additionalProperties: false })
export type CategoriesQuery = Static<typeof CategoriesQuery>

export const CategoryAnalysis = Type.Object(
  {
    category: StringEnum(CATEGORIES, { description: 'An inventory category with sales or a count window in the period' }),
    total_sales: Type.Number({
      description:
        'Revenue of the mapped lines sold in the period that used the category’s items, account currency, 2 decimals; a line using several items (a recipe) is split by their share of its usage cost',
    }),
    total_cost: Type.Number({ description: 'Cost of the expected usage of those lines (units × the unit cost stored with the usage), account currency, 2 decimals' }),
    pour_cost: Nullable(Type.Number({ description: 'total_cost / total_sales × 100, percent, 2 decimals; null without sales' })),
    variance: Nullable(
      Type.Number({
        description:
          'Σ (actual − expected) × the cost of the window’s time over the category’s items’ count windows (the variance report’s estimated_loss), account currency, 2 decimals; null when no item of the category has two counts',
      }),
    ),
    variance_percentage: Nullable(
      Type.Number({ description: 'variance / Σ expected cost in those windows × 100 (100 when nothing was expected but some was used), percent, 2 decimals; null with variance' }),
    ),
    top_performers: Type.Array(
      Type.Object({
        name: Type.String({ description: 'Inventory item name' }),
        sales: Type.Number({ description: 'The item’s share of revenue in the period, account currency' }),
        margin: Type.Number({ description: 'sales − cost of the item’s expected usage, account currency' }),
      }),
      { description: 'Up to 5 items with sales, highest margin first (then by name)' },
    ),
    underperformers: Type.Array(
      Type.Object({
        name: Type.String({ description: 'Inventory item name' }),
        sales: Type.Number({ description: 'The item’s share of revenue in the period, account currency' }),
        variance: Type.Number({ description: 'The item’s variance cost in its count window, account currency (positive: a loss)' }),
      }),
      { description: 'Up to 5 items with a positive variance cost, largest first (then by name)' },
    ),
  },
  {
    examples: [
      {
        category: 'spirits',
        total_sales: 18450.5,
        total_cost: 3690.1,
        pour_cost: 20,
        variance: 412.35,
        variance_percentage: 4.8,
        top_performers: [{ name: "Tito's Handmade Vodka 750ml", sales: 3120, margin: 2496 }],
        underperformers: [{ name: 'Espolòn Blanco Tequila 750ml', sales: 1480, variance: 96.2 }],
      },
    ],
  },
)
export type CategoryAnalysis = Static<typeof CategoryAnalysis>
