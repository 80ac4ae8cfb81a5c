import { type Static, Type } from 'typebox'

const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 code of a currency in use (three uppercase letters); every money amount of the account is in it. Default USD',
  examples: ['USD', 'EUR'],
})
const Percentage = (what: string, fallback: number) =>
  Type.Number({
    exclusiveMinimum: 0,
    maximum: 100,
    description: `${what}: a percentage above 0 and at most 100, up to 2 decimals. Default ${fallback}`,
    examples: [fallback],
  })

const settingsFields = {
  currency: Currency,
  variance_threshold: Percentage('Variance percentage above which an item is flagged (variance reports, variance.detected events; high severity above twice it)', 5),
}

const targetFields = {
  pour_cost: Percentage('Target pour cost, cost of expected usage over sales revenue', 20),
  variance_rate: Percentage('Target variance rate, variance cost over expected usage cost', 3),
  inventory_turnover: Type.Number({
    exclusiveMinimum: 0,
    maximum: 365,
    description: 'Target inventory turns per 30 days: above 0 and at most 365, up to 2 decimals. Default 4',
    examples: [4],
  }),
  gross_margin: Percentage('Target gross margin, revenue less cost of expected usage over revenue', 75),
}

export const Settings = Type.Object({
  ...settingsFields,
  targets: Type.Object(targetFields, { description: 'What the metrics report compares each metric with' }),
})
export type Settings = Static<typeof Settings>

export const UpdateSettingsBody = Type.Object(
  {
    currency: Type.Optional(settingsFields.currency),
    variance_threshold: Type.Optional(settingsFields.variance_threshold),
    targets: Type.Optional(
      Type.Object(
        {
          pour_cost: Type.Optional(targetFields.pour_cost),
          variance_rate: Type.Optional(targetFields.variance_rate),
          inventory_turnover: Type.Optional(targetFields.inventory_turnover),
          gross_margin: Type.Optional(targetFields.gross_margin),
        },
        { additionalProperties: false, description: 'Any of the targets; the others keep their value' },
      ),
    ),
  },
  { additionalProperties: false },
)
export type UpdateSettingsBody = Static<typeof UpdateSettingsBody>
