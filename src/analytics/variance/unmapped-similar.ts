import { createHash } from 'node:crypto'
import type { Executor, Tenant } from '../../platform/db/database.js'
import { decimal } from '../../platform/decimal.js'
import { type ReportItem, stockUsed } from '../../inventory/index.js'
import { defaultConversionFor, type Match, NameMatcher } from '../../pos/index.js'
import { allLocations } from '../../locations/index.js'
import { type ClockedSpan, type UnmappedSales, unmappedSalesInSpans } from '../rollups.repository.js'
import type { UnmappedSimilar } from './variance-causes.js'
import type { CountWindow } from './variance-windows.js'

/**
 * The unmapped POS items sold inside an item's count window whose names resemble the item (the
 * unmapped_sales cause rule's input): each POS name is matched once against the items of its location
 * with the auto-map matcher, and the sales are read per distinct window (items counted together share one).
 */

/** An unmapped POS item resembles an inventory item from this name similarity (the auto-map matcher's). */
const SIMILAR_NAME = 0.5
/** Item sets whose POS-name matches are remembered (a bar's catalogue rarely changes between reports). */
const REMEMBERED_CATALOGUES = 16

interface WindowOfItem {
  item: ReportItem
  window: CountWindow
}

interface Resembling {
  sales: UnmappedSales
  similarity: number
}

/** Best matches by POS name, per catalogue (the items' ids, names, units and sizes: all the matcher reads). */
const rememberedMatches = new Map<string, { matcher: NameMatcher; byName: Map<string, Match | undefined> }>()

/** Catalogue keys of item lists already hashed: a report's batches match names among the same list. */
const hashedCatalogues = new WeakMap<ReportItem[], string>()

function catalogueKey(items: ReportItem[]): string {
  const known = hashedCatalogues.get(items)
  if (known !== undefined) return known
  const hash = createHash('sha1')
  for (const item of items) hash.update(`${item.id}\u0000${item.name}\u0000${item.unit}\u0000${item.size_ml ?? ''}\u0001`)
  const key = hash.digest('base64')
  hashedCatalogues.set(items, key)
  return key
}

/** The matcher's best item for each name, remembered per catalogue: the matcher is deterministic and costly. */
function bestMatches(items: ReportItem[], names: Iterable<string>): Map<string, Match | undefined> {
  const key = catalogueKey(items)
  let remembered = rememberedMatches.get(key)
  if (remembered) rememberedMatches.delete(key)
  else remembered = { matcher: new NameMatcher(items), byName: new Map() }
  rememberedMatches.set(key, remembered)
  if (rememberedMatches.size > REMEMBERED_CATALOGUES) rememberedMatches.delete(rememberedMatches.keys().next().value as string)
  for (const name of names) if (!remembered.byName.has(name)) remembered.byName.set(name, remembered.matcher.bestMatch(name))
  return remembered.byName
}

function spanKey(location: string, window: CountWindow): string {
  return `${location}|${window.opening.countedAt.getTime()}|${window.closing.countedAt.getTime()}`
}

/** The distinct windows (location, opening, closing) among these, each on its location's clock, and each one's index. */
async function distinctSpans(db: Executor, tenant: Tenant, windows: WindowOfItem[]): Promise<{ spans: ClockedSpan[]; indexOf: Map<string, number> }> {
  const spans: ClockedSpan[] = []
  const indexOf = new Map<string, number>()
  if (windows.length === 0) return { spans, indexOf }
  const clocks = new Map((await allLocations(db, tenant)).map((location) => [location.id, { timezone: location.timezone, cutoff: location.business_day_cutoff }]))
  for (const { item, window } of windows) {
    const key = spanKey(item.location_id, window)
    if (indexOf.has(key)) continue
    const clock = clocks.get(item.location_id)
    if (!clock) throw new Error(`no location ${item.location_id}`)
    indexOf.set(key, spans.length)
    spans.push({ location: item.location_id, start: window.opening.countedAt, end: window.closing.countedAt, clock })
  }
  return { spans, indexOf }
}

/** What each unmapped POS item would have taken of the item, when its pour converts into the item's unit. */
function similarOf(item: ReportItem, resembling: Resembling[]): UnmappedSimilar[] {
  return resembling.map(({ sales, similarity }) => {
    const conversion = defaultConversionFor(sales.name, item)
    // A pour that cannot be converted gives no estimate (the rule then reads quantities only).
    const estimatedUnits = 'conversion' in conversion ? Number(stockUsed(decimal(sales.quantity), String(conversion.conversion.factor), conversion.conversion.unit, item)) : null
    return { name: sales.name, similarity, quantity: Number(sales.quantity), estimatedUnits }
  })
}

/**
 * For each window's item, the unmapped POS items sold at its location after its opening count and up to
 * its closing count whose names resemble it (from SIMILAR_NAME up), by item id. Names are matched among
 * the live items of the sales’ own location (`readCatalogues`, by location id, read only when there are), whatever else a report
 * covers: an item's causes do not depend on which other locations or categories are in the report.
 */
export async function unmappedSimilarTo(
  db: Executor,
  tenant: Tenant,
  windows: WindowOfItem[],
  readCatalogues: () => Promise<Map<string, ReportItem[]>>,
): Promise<Map<string, UnmappedSimilar[]>> {
  const similar = new Map<string, UnmappedSimilar[]>()
  const { spans, indexOf } = await distinctSpans(db, tenant, windows)
  const unmapped = await unmappedSalesInSpans(db, tenant, spans)
  if (unmapped.length === 0) return similar
  // Read only now: a period without unmapped sales (most) needs no catalogue.
  const catalogues = await readCatalogues()
  // Per span, per resembling item.
  const bySpanAndItem = new Map<string, Resembling[]>()
  for (const [location, catalogue] of catalogues) {
    const atLocation = unmapped.filter((sales) => spans[sales.span]?.location === location)
    const matches = bestMatches(catalogue, new Set(atLocation.map((sales) => sales.name)))
    for (const sales of atLocation) {
      const match = matches.get(sales.name)
      if (!match || match.confidence < SIMILAR_NAME) continue
      const key = `${sales.span}|${match.item.id}`
      const resembling = bySpanAndItem.get(key) ?? []
      resembling.push({ sales, similarity: match.confidence })
      bySpanAndItem.set(key, resembling)
    }
  }
  for (const { item, window } of windows) {
    const resembling = bySpanAndItem.get(`${indexOf.get(spanKey(item.location_id, window))}|${item.id}`)
    if (resembling) similar.set(item.id, similarOf(item, resembling))
  }
  return similar
}
