import type { Executor, Tenant } from '../../platform/db/database.js'
import { type Decimal, decimal, MONEY_DECIMALS, moneyOut, sum, toApiNumber, ZERO } from '../../platform/decimal.js'
import type { PageRequest } from '../../platform/http/pagination.js'
import { type DeliveryUnitCost, findStockItems, stockItemsInCategories, type StockItem, lastDeliveryUnitCosts, toItemUnits } from '../../inventory/index.js'
import { getRecipe, listRecipesForCosting, type Recipe } from '../../recipes/index.js'
import { getSettings } from '../../settings/index.js'
import type { CostingQuery, RecipeCosting } from './costing.schemas.js'
import { PERCENT_DECIMALS } from '../report-period.js'

/** A cheaper item is suggested only when it saves at least this share of the ingredient's cost… */
export const REPLACEMENT_MIN_SAVING_SHARE = decimal('0.10')
/** …and at least a cent a serving. */
export const REPLACEMENT_MIN_SAVING = decimal('0.01')

/** Units that measure an amount (a volume or a weight); any other unit counts pieces (bottle, each, …). */
const MEASURE_UNITS = new Set(['ml', 'liter', 'oz', 'gallon', 'g', 'kg', 'lb'])
const ROUND_UP = 3
const UNIT_COST_DISPLAY_DECIMALS = 4

type RecipeIngredient = Recipe['ingredients'][number]

/** Everything the report reads once for the recipes it costs. */
interface CostingInputs {
  items: Map<string, StockItem>
  deliveries: Map<string, DeliveryUnitCost>
  /** Live items by inventory category: the replacement candidates. */
  byCategory: Map<string, StockItem[]>
  pourCostTarget: Decimal
  money: (amount: Decimal) => string
  unitCost: (amount: Decimal) => string
}

/** An amount of money as the account's currency writes it ($13.75, €13.75, CA$13.75). */
function currencyFormat(currency: string, maxDecimals: number): (amount: Decimal) => string {
  const format = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: MONEY_DECIMALS,
    maximumFractionDigits: maxDecimals,
  })
  return (amount) => format.format(Number(amount.round(maxDecimals).toFixed(maxDecimals)))
}

const percent = (value: Decimal) => String(toApiNumber(value, PERCENT_DECIMALS))

/** One serving's amount of an ingredient in an item's unit, or undefined when the item cannot supply it. */
function unitsFrom(ingredient: RecipeIngredient, item: StockItem): Decimal | undefined {
  return toItemUnits(decimal(ingredient.quantity), ingredient.unit, item)
}

/**
 * The cheapest live item that could replace an ingredient, when it saves enough: same inventory category,
 * cost known (above 0), and the same unit family. A measured amount (oz, ml, g, …) converts to any item
 * holding that measure; a counted one (bottle, each, …) only to items of the same unit and size_ml.
 */
function cheaperReplacement(ingredient: RecipeIngredient, item: StockItem, cost: Decimal, inputs: CostingInputs) {
  let best: { item: StockItem; cost: Decimal } | undefined
  for (const candidate of inputs.byCategory.get(item.category) ?? []) {
    if (candidate.id === item.id || decimal(candidate.cost_per_unit).lte(0)) continue
    if (!MEASURE_UNITS.has(ingredient.unit) && (candidate.unit !== item.unit || candidate.size_ml !== item.size_ml)) continue
    const units = unitsFrom(ingredient, candidate)
    if (units === undefined) continue
    const candidateCost = units.times(candidate.cost_per_unit)
    if (!best || candidateCost.lt(best.cost)) best = { item: candidate, cost: candidateCost }
  }
  if (!best) return undefined
  const saving = cost.minus(best.cost)
  const material = saving.gte(cost.times(REPLACEMENT_MIN_SAVING_SHARE)) && saving.round(MONEY_DECIMALS).gte(REPLACEMENT_MIN_SAVING)
  return material ? { ...best, saving } : undefined
}

/** The suggestions about one ingredient: a deleted item, a cheaper replacement, a cost that rose since the last delivery. */
function ingredientSuggestions(ingredient: RecipeIngredient, item: StockItem, units: Decimal, cost: Decimal, inputs: CostingInputs): string[] {
  const { money, unitCost } = inputs
  const amount = `${ingredient.quantity} ${ingredient.unit}`
  const suggestions: string[] = []
  if (item.deleted) {
    suggestions.push(
      `${item.name} was deleted from inventory: it is costed at its last cost of ${unitCost(decimal(item.cost_per_unit))} a ${item.unit} and POS sales of this recipe no longer deplete it; replace it in the recipe.`,
    )
  }
  const replacement = cheaperReplacement(ingredient, item, cost, inputs)
  if (replacement) {
    suggestions.push(
      `Replace ${item.name} with ${replacement.item.name} (also ${item.category}): ${amount} would cost ${money(replacement.cost)} instead of ${money(cost)}, saving ${money(replacement.saving)} a serving (${percent(replacement.saving.div(cost).times(100))}% of this ingredient's cost).`,
    )
  }
  const delivery = inputs.deliveries.get(item.id)
  const current = decimal(item.cost_per_unit)
  if (delivery && decimal(delivery.unitCost).gt(0) && current.gt(delivery.unitCost)) {
    const rise = current.minus(delivery.unitCost)
    suggestions.push(
      `${item.name} now costs ${unitCost(current)} a ${item.unit}, up ${percent(rise.div(delivery.unitCost).times(100))}% from ${unitCost(decimal(delivery.unitCost))} at its last delivery on ${delivery.deliveredAt.toISOString().slice(0, 10)}: ${money(units.times(rise))} more a serving; check the distributor's price or look for another supplier.`,
    )
  }
  return suggestions
}

/** The price suggestion: the lowest price (up to the cent) whose pour cost is at most the target, when the current one is above it. */
function priceSuggestion(price: Decimal, total: Decimal, inputs: CostingInputs): string | undefined {
  const target = inputs.pourCostTarget
  if (total.lte(0)) return undefined
  const targetPrice = total.times(100).div(target).round(MONEY_DECIMALS, ROUND_UP)
  const targetText = `the ${percent(target)}% pour-cost target`
  if (price.eq(0)) return `Set a selling price: a serving costs ${inputs.money(total)}, and ${inputs.money(targetPrice)} reaches ${targetText}.`
  const pourCost = total.div(price).times(100)
  if (pourCost.lte(target)) return undefined
  return `Raise the price to ${inputs.money(targetPrice)} to reach ${targetText} (now ${percent(pourCost)}% at ${inputs.money(price)}).`
}

function costRecipe(recipe: Recipe, inputs: CostingInputs): RecipeCosting {
  const price = decimal(recipe.selling_price)
  const ingredientSuggestionLists: string[][] = []
  const ingredients = recipe.ingredients.map((ingredient) => {
    const item = inputs.items.get(ingredient.inventory_item_id)
    if (!item) return { ...ingredient, exactCost: ZERO }
    const quantity = decimal(ingredient.quantity)
    // An item whose unit later changed to one the recipe's unit does not convert to is read in its own unit, as depletion does.
    const units = unitsFrom(ingredient, item) ?? quantity
    const exactCost = units.times(item.cost_per_unit)
    ingredientSuggestionLists.push(ingredientSuggestions(ingredient, item, units, exactCost, inputs))
    return { ...ingredient, exactCost }
  })
  const total = sum(ingredients.map((ingredient) => ingredient.exactCost))
  const priceAdvice = priceSuggestion(price, total, inputs)
  return {
    recipe_id: recipe.id,
    name: recipe.name,
    category: recipe.category,
    selling_price: moneyOut(price),
    total_cost: moneyOut(total),
    pour_cost_percentage: price.eq(0) ? null : toApiNumber(total.div(price).times(100), PERCENT_DECIMALS),
    gross_margin: moneyOut(price.minus(total)),
    ingredients: ingredients.map(({ exactCost, ...ingredient }) => ({
      inventory_item_id: ingredient.inventory_item_id,
      name: ingredient.name,
      quantity: ingredient.quantity,
      unit: ingredient.unit,
      cost: moneyOut(exactCost),
    })),
    optimization_suggestions: [...(priceAdvice ? [priceAdvice] : []), ...ingredientSuggestionLists.flat()],
  }
}

/**
 * The costing of live recipes by name (one recipe, one drink category, or all; a page of them): each
 * ingredient's cost from its item's current cost_per_unit, the serving's total cost, pour cost and gross
 * margin, and optimization suggestions (docs/costing.md). Money in the account's currency, computed
 * exactly and rounded to 2 decimals once. Throws recipe_not_found for an unknown recipe_id.
 */
export async function recipeCosting(db: Executor, tenant: Tenant, query: CostingQuery, page: PageRequest): Promise<{ recipes: RecipeCosting[]; total: number }> {
  if (query.recipe_id !== undefined) await getRecipe(db, tenant, query.recipe_id)
  const all = await listRecipesForCosting(db, tenant, { recipeId: query.recipe_id, category: query.category })
  const recipes = all.slice(page.offset, page.offset + page.perPage)
  const itemIds = recipes.flatMap((recipe) => recipe.ingredients.map((ingredient) => ingredient.inventory_item_id))
  const items = await findStockItems(db, tenant, itemIds, { includeDeleted: true })
  const candidates = await stockItemsInCategories(db, tenant, [...new Set([...items.values()].map((item) => item.category))])
  const byCategory = new Map<string, StockItem[]>()
  for (const candidate of candidates) byCategory.set(candidate.category, [...(byCategory.get(candidate.category) ?? []), candidate])
  const settings = await getSettings(db, tenant)
  const inputs: CostingInputs = {
    items,
    deliveries: await lastDeliveryUnitCosts(db, tenant, itemIds),
    byCategory,
    pourCostTarget: decimal(settings.targets.pour_cost),
    money: currencyFormat(settings.currency, MONEY_DECIMALS),
    unitCost: currencyFormat(settings.currency, UNIT_COST_DISPLAY_DECIMALS),
  }
  return { recipes: recipes.map((recipe) => costRecipe(recipe, inputs)), total: all.length }
}
