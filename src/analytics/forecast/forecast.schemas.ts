import { type Static, Type } from 'typebox'
import { CATEGORIES } from '../../inventory/index.js'
import { Timestamp } from '../../platform/http/schemas.js'
import { StringEnum } from '../../platform/http/types.js'

export const MAX_FORECAST_DAYS = 30
export const DEFAULT_FORECAST_DAYS = 7

export const ForecastQuery = Type.Object(
  {
    days_ahead: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_FORECAST_DAYS,
        default: DEFAULT_FORECAST_DAYS,
        description: 'Business days forecast, from the current one: 1 to 30, default 7',
      }),
    ),
    location: Type.Optional(Type.String({ description: 'Only items stocked at this location id (location_not_found otherwise)', examples: ['main_bar'] })),
    category: Type.Optional(StringEnum(CATEGORIES, { description: `Only items of this inventory category: one of ${CATEGORIES.join(', ')}` })),
  },
  { additionalProperties: false },
)
export type ForecastQuery = Static<typeof ForecastQuery>

export const ItemForecast = Type.Object({
  inventory_item_id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }),
  name: Type.String({ description: 'Its name', examples: ['Tito’s Handmade Vodka 750ml'] }),
  current_stock: Type.Number({ description: "Theoretical stock now, in the item's unit (may be below zero)" }),
  forecasted_demand: Type.Number({
    description: "Sum of the stored daily forecast over the first days_ahead days, in the item's unit, 4 decimals",
  }),
  confidence: Type.Number({
    minimum: 0,
    maximum: 1,
    description: '1 − the back-test WAPE, clamped to 0..1, 2 decimals; without a back-test (under 28 days of history) 0.5 × history days / 28',
  }),
  factors: Type.Object(
    {
      seasonality: StringEnum(['weekly', 'none'] as const, { description: 'weekly when the weekly pattern is strong (docs/forecast-accuracy.md)' }),
      events: Type.Array(Type.String(), {
        description:
          "Public holidays in the horizon in the country of the item's location; [] when the location has no country. Each is forecast as an ordinary day unless listed in holiday_effects",
      }),
      holiday_effects: Type.Array(
        Type.Object({
          date: Type.String({ description: 'The holiday, YYYY-MM-DD', examples: ['2026-12-25'] }),
          holiday: Type.String({ description: 'Its name, as in events', examples: ['Christmas Day'] }),
          factor: Type.Number({
            minimum: 0,
            description: "What the model's forecast for the day was multiplied by, 2 decimals: 0 when the location sold nothing on its past occurrences (closed)",
          }),
        }),
        {
          description:
            "The holidays in the horizon whose forecast was scaled by the location's sales on their past occurrences (the last two years: at least 2 occurrences, all closed or all on the same side of the same weekday's usual sales; the ratio shrunk toward 1). docs/forecasts.md",
        },
      ),
      trend: StringEnum(['increasing', 'decreasing', 'stable'] as const, { description: 'Where demand is heading over the history the model saw' }),
    },
    { description: 'What shapes the forecast' },
  ),
  recommendation: Type.String({
    description: 'How many days current stock covers at the forecast rate, and by when to order so as not to fall below the reorder point (docs/forecasts.md)',
  }),
})
export type ItemForecast = Static<typeof ItemForecast>

export const DemandForecastReport = Type.Object(
  {
    forecast_period: Type.String({ description: 'Business dates covered, first/last, both included (YYYY-MM-DD/YYYY-MM-DD)' }),
    location: Type.String({ description: 'The location asked for, or "all"' }),
    forecasts: Type.Array(ItemForecast, { description: 'Items with a stored forecast, by name' }),
    generated_at: { ...Timestamp, description: 'When the oldest forecast shown was fitted' },
  },
  {
    examples: [
      {
        forecast_period: '2026-11-23/2026-11-29',
        location: 'main_bar',
        forecasts: [
          {
            inventory_item_id: 'item_01jd2x3v4w5y6z7a8b9c0d1e2f',
            name: 'Tito’s Handmade Vodka 750ml',
            current_stock: 9,
            forecasted_demand: 11.8421,
            confidence: 0.78,
            factors: { seasonality: 'weekly', events: ['Thanksgiving Day'], holiday_effects: [{ date: '2026-11-26', holiday: 'Thanksgiving Day', factor: 0 }], trend: 'stable' },
            recommendation: 'Stock covers 5 days at the forecast rate (through Fri 27 Nov); order by Wed 25 Nov, when it is forecast to fall below the reorder point of 4 bottle.',
          },
        ],
        generated_at: '2026-11-23T04:00:12.345Z',
      },
    ],
  },
)
export type DemandForecastReport = Static<typeof DemandForecastReport>

/** History shown before a forecast: eight weeks, enough to see the weekly pattern the model fits. */
export const FORECAST_HISTORY_DAYS = 56

export const ItemForecastParams = Type.Object({ id: Type.String({ description: 'The inventory item', examples: ['item_01jd2x3v4w5y6z7a8b9c0d1e2f'] }) })

const UnitsUsed = (description: string) => Type.Number({ minimum: 0, description })

export const ItemForecastSeries = Type.Object(
  {
    inventory_item_id: Type.String({ description: 'The item' }),
    name: Type.String({ description: 'The item’s name' }),
    unit: Type.String({ description: 'The unit of every quantity below', examples: ['bottle'] }),
    history: Type.Array(
      Type.Object({
        date: Type.String({ description: 'A business date of the item’s location, YYYY-MM-DD' }),
        quantity: UnitsUsed('Units the day’s sales used (0 on a day without sales)'),
      }),
      { description: `The ${FORECAST_HISTORY_DAYS} business days up to the last day the forecast saw, oldest first` },
    ),
    forecast: Type.Array(
      Type.Object({
        date: Type.String({ description: 'A business date, YYYY-MM-DD' }),
        quantity: UnitsUsed('Forecast demand of the day'),
        low: UnitsUsed('Lower end of the band: quantity − 1.96 × the back-test’s daily error spread, not below 0'),
        high: UnitsUsed('Upper end of the band: quantity + 1.96 × the back-test’s daily error spread'),
      }),
      { description: 'The 30 stored forecast days that follow the history' },
    ),
    fitted_at: { ...Timestamp, description: 'When the forecast was fitted' },
  },
  {
    examples: [
      {
        inventory_item_id: 'item_01jd2x3v4w5y6z7a8b9c0d1e2f',
        name: 'Tito’s Handmade Vodka 750ml',
        unit: 'bottle',
        history: [{ date: '2026-11-22', quantity: 1.6 }],
        forecast: [{ date: '2026-11-23', quantity: 1.4211, low: 0.6371, high: 2.2051 }],
        fitted_at: '2026-11-23T04:00:12.345Z',
      },
    ],
  },
)
export type ItemForecastSeries = Static<typeof ItemForecastSeries>
