import type { Executor, Tenant } from '../../platform/db/database.js'
import { type Decimal, MONEY_DECIMALS, moneyOut, scaledOut, sum, sumScaled, ZERO } from '../../platform/decimal.js'
import type { PageRequest } from '../../platform/http/pagination.js'
import { findStockItems, type StockItem, itemsInScope } from '../../inventory/index.js'
import type { CategoriesQuery, CategoryAnalysis } from './metrics.schemas.js'
import { type ItemWindow, itemWindows, percentOf, percentOut, periodLines, revenueByItem } from './period-facts.js'
import { COST_PLACES, varianceRate } from '../variance/variance-windows.js'
import { locationBounds, reportPeriod } from '../report-period.js'

const LISTED = 5

interface ItemFigures {
  item: StockItem
  /** The item's share of the revenue of the lines that used it. */
  sales: Decimal
  /** Cost of its expected usage in the period's lines. */
  cost: Decimal
  sold: boolean
  window?: ItemWindow
}

const byName = (a: ItemFigures, b: ItemFigures) => a.item.name.localeCompare(b.item.name) || a.item.id.localeCompare(b.item.id)

function categoryOut(category: string, items: ItemFigures[]): CategoryAnalysis & { sales: Decimal } {
  const sales = sum(items.map((entry) => entry.sales))
  const cost = sum(items.map((entry) => entry.cost))
  const windows = items.flatMap((entry) => (entry.window ? [entry.window] : []))
  const varianceCost = sumScaled(windows.map((window) => window.varianceCost))
  const measured = windows.length > 0
  return {
    category: category as CategoryAnalysis['category'],
    total_sales: moneyOut(sales),
    total_cost: moneyOut(cost),
    pour_cost: percentOut(percentOf(cost, sales)),
    variance: measured ? scaledOut(varianceCost, COST_PLACES, MONEY_DECIMALS) : null,
    variance_percentage: measured ? varianceRate(varianceCost, sumScaled(windows.map((window) => window.expectedCost))) : null,
    top_performers: items
      .filter((entry) => entry.sold)
      .map((entry) => ({ entry, margin: entry.sales.minus(entry.cost) }))
      .sort((a, b) => b.margin.cmp(a.margin) || byName(a.entry, b.entry))
      .slice(0, LISTED)
      .map(({ entry, margin }) => ({ name: entry.item.name, sales: moneyOut(entry.sales), margin: moneyOut(margin) })),
    underperformers: items
      .flatMap((entry) => (entry.window && entry.window.varianceCost > 0n ? [{ entry, variance: entry.window.varianceCost }] : []))
      .sort((a, b) => (b.variance > a.variance ? 1 : b.variance < a.variance ? -1 : byName(a.entry, b.entry)))
      .slice(0, LISTED)
      .map(({ entry, variance }) => ({ name: entry.item.name, sales: moneyOut(entry.sales), variance: scaledOut(variance, COST_PLACES, MONEY_DECIMALS) })),
    sales,
  }
}

/**
 * Category analysis (DECISIONS, Analytics → Metrics; docs/metrics.md): per inventory category with sales
 * or a count window in the period, revenue (a recipe line's split by cost share), cost of expected usage,
 * pour cost, window variance, and its best-margin and biggest-loss items; highest revenue first. Throws
 * invalid_parameter and invalid_date_range.
 */
export async function categoryAnalysis(
  db: Executor,
  tenant: Tenant,
  query: CategoriesQuery,
  page: PageRequest,
  now = new Date(),
): Promise<{ categories: CategoryAnalysis[]; total: number }> {
  const period = reportPeriod(query, now)
  const bounds = await locationBounds(db, tenant, period)
  const lines = (await periodLines(db, tenant, [...bounds.values()])).filter((entry) => entry.usage.length > 0)
  const live = await itemsInScope(db, tenant, {})
  const windows = await itemWindows(db, tenant, live, bounds)
  // Items deleted since keep their sales under their last name and category.
  const items = await findStockItems(db, tenant, [...new Set([...live.map((item) => item.id), ...lines.flatMap((entry) => entry.usage.map((usage) => usage.itemId))])], {
    includeDeleted: true,
  })
  const figures = new Map<string, ItemFigures>()
  const figuresOf = (item: StockItem) => {
    const entry = figures.get(item.id) ?? { item, sales: ZERO, cost: ZERO, sold: false }
    figures.set(item.id, entry)
    return entry
  }
  for (const line of lines) {
    const shares = revenueByItem(line)
    for (const usage of line.usage) {
      const item = items.get(usage.itemId)
      if (!item) continue
      const entry = figuresOf(item)
      entry.cost = entry.cost.plus(usage.cost)
      entry.sold = true
    }
    for (const [itemId, share] of shares) {
      const item = items.get(itemId)
      if (item) figuresOf(item).sales = figuresOf(item).sales.plus(share)
    }
  }
  for (const window of windows) {
    const item = items.get(window.item.id)
    if (item) figuresOf(item).window = window
  }
  const byCategory = new Map<string, ItemFigures[]>()
  for (const entry of figures.values()) byCategory.set(entry.item.category, [...(byCategory.get(entry.item.category) ?? []), entry])
  const all = [...byCategory.entries()]
    .map(([category, entries]) => categoryOut(category, entries))
    .sort((a, b) => b.sales.cmp(a.sales) || a.category.localeCompare(b.category))
    .map(({ sales: _, ...category }) => category)
  return { categories: all.slice(page.offset, page.offset + page.perPage), total: all.length }
}
