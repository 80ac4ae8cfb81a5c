import { checkDecimalPlaces } from '../platform/number-input.js'
import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { toApiNumber, toDbNumeric } from '../platform/decimal.js'
import { invalidParameter } from '../platform/errors.js'
import type { Settings, UpdateSettingsBody } from './settings.schemas.js'

/** What a tenant that never saved settings gets (DECISIONS.md); inventory_turnover is per 30 days. */
export const DEFAULT_SETTINGS: Settings = {
  currency: 'USD',
  variance_threshold: 5,
  targets: { pour_cost: 20, variance_rate: 3, inventory_turnover: 4, gross_margin: 75 },
}

const SETTING_DECIMALS = 2
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'))

const number = (value: string | null, fallback: number) => (value === null ? fallback : toApiNumber(value, SETTING_DECIMALS))

/**
 * The tenant's settings, each field falling back to its default when none is stored. Other domains (the
 * currency of money, the variance threshold, the metric targets) read them here.
 */
export async function getSettings(db: Executor, tenant: Tenant): Promise<Settings> {
  const row = await db.selectFrom('settings').selectAll().where('account_id', '=', tenant.accountId).where('environment', '=', tenant.environment).executeTakeFirst()
  if (!row) return structuredClone(DEFAULT_SETTINGS)
  const targets = DEFAULT_SETTINGS.targets
  return {
    currency: row.currency ?? DEFAULT_SETTINGS.currency,
    variance_threshold: number(row.variance_threshold, DEFAULT_SETTINGS.variance_threshold),
    targets: {
      pour_cost: number(row.target_pour_cost, targets.pour_cost),
      variance_rate: number(row.target_variance_rate, targets.variance_rate),
      inventory_turnover: number(row.target_inventory_turnover, targets.inventory_turnover),
      gross_margin: number(row.target_gross_margin, targets.gross_margin),
    },
  }
}

/** A setting's number as stored: at most 2 decimals (the schema has checked the range). */
function settingNumber(parameter: string, value: number | undefined): string | undefined {
  if (value === undefined) return undefined
  checkDecimalPlaces(parameter, value, SETTING_DECIMALS)
  return toDbNumeric(value, SETTING_DECIMALS)
}

/**
 * Changes the given settings (targets one by one too) and answers all of them; 400 invalid_parameter for
 * a currency that is not an ISO 4217 code in use or a number with more than 2 decimals.
 */
export async function updateSettings(trx: Trx, tenant: Tenant, input: UpdateSettingsBody): Promise<Settings> {
  if (input.currency !== undefined && !CURRENCIES.has(input.currency)) {
    throw invalidParameter('currency', input.currency, `currency ${input.currency} is not an ISO 4217 currency code in use`)
  }
  const targets = input.targets ?? {}
  const fields = {
    currency: input.currency,
    variance_threshold: settingNumber('variance_threshold', input.variance_threshold),
    target_pour_cost: settingNumber('targets.pour_cost', targets.pour_cost),
    target_variance_rate: settingNumber('targets.variance_rate', targets.variance_rate),
    target_inventory_turnover: settingNumber('targets.inventory_turnover', targets.inventory_turnover),
    target_gross_margin: settingNumber('targets.gross_margin', targets.gross_margin),
  }
  const given: Partial<typeof fields> = {}
  for (const [name, value] of Object.entries(fields) as [keyof typeof fields, string | undefined][]) {
    if (value !== undefined) given[name] = value
  }
  if (Object.keys(given).length > 0) {
    await trx
      .insertInto('settings')
      .values({ account_id: tenant.accountId, environment: tenant.environment, ...given })
      .onConflict((conflict) => conflict.columns(['account_id', 'environment']).doUpdateSet({ ...given, updated_at: new Date() }))
      .execute()
  }
  return getSettings(trx, tenant)
}
