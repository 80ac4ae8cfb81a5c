import { isDeepStrictEqual } from 'node:util'
import type { Executor, Tenant } from '../../platform/db/database.js'
import { decimal, MONEY_DECIMALS, moneyOut, sum, QUANTITY_STORED_DECIMALS, quantityOut, scaledOut, sumScaled, toApiNumber, ZERO } from '../../platform/decimal.js'
import { crossLocationSaleLines, type HistorySpan, itemsCountedByWeight, itemsInScope, type ReportItem, wasteCostByItemAndReason } from '../../inventory/index.js'
import { getLocation } from '../../locations/index.js'
import { getSettings } from '../../settings/index.js'
import { analyticsErrors } from '../analytics.errors.js'
import { type LocationBounds, locationBounds, periodLabel, type ReportPeriod, reportPeriod, shiftDate } from '../report-period.js'
import { type PosRevenue, posRevenue } from '../rollups.repository.js'
import { rankCauses, type UnmappedSimilar, type WindowFacts } from './variance-causes.js'
import { itemsSoldInOwnUnit } from './sold-in-own-unit.js'
import { unmappedSimilarTo } from './unmapped-similar.js'
import type { VarianceItem, VarianceQuery, VarianceReport } from './variance.schemas.js'
import {
  COST_PLACES,
  earlierFacts,
  type MeasuredWindow,
  measureWindows,
  PREVIOUS_WINDOWS,
  QUANTITY_PLACES,
  unexplainedUsage,
  varianceRate,
  walkedFacts,
} from './variance-windows.js'
import { windowMoney, type WindowMoney } from './window-costs.js'
import {
  earlierClosedAt,
  earlierCount,
  type EarlierWindows,
  type ItemPlan,
  plannedWindows,
  type PlannedWindow,
  type WindowChoice,
  windowsChosen,
} from './window-plan.repository.js'
import { businessDayAt, DAY_MS } from '../../platform/zoned-time.js'
import type { ChangeHorizon } from '../../platform/tenant-changes.js'
import type { Computed } from '../../platform/http/report-cache.js'

/** A count older than this before the period's end makes an item's figures stale. */
const STALE_COUNT_DAYS = 14
const UNMAPPED_LISTED = 10

export interface PlannedItem {
  item: ReportItem
  window: PlannedWindow
}

export interface ScoredItem extends PlannedItem {
  measured: MeasuredWindow
  /** The window's money at the costs of its time. */
  money: WindowMoney
  /** actual − expected − recorded waste, scaled to QUANTITY_PLACES. */
  variance: bigint
  /** The variance percentage as answered (2 decimals), which thresholds are compared with. */
  percentage: number
  aboveThreshold: boolean
  /** Above twice the threshold (severity high). */
  highVariance: boolean
}

function boundsOf(bounds: Map<string, LocationBounds>, location: string): LocationBounds {
  const found = bounds.get(location)
  if (!found) throw new Error(`no bounds for location ${location}`)
  return found
}

/**
 * The windows of `items` chosen by `choice` (window-plan.repository.ts), in the items' order; items
 * without a window are left out. With `previous`, each window brings that many earlier windows (the
 * variance report and a count's events plan many windows with none, and read the flagged items' with
 * flaggedEarlier: scoredWindows).
 */
export async function planWindows(db: Executor, items: ReportItem[], choice: WindowChoice, previous: number) {
  const plans = await plannedWindows(db, choice, previous)
  const planned = items.flatMap((item): PlannedItem[] => {
    const window = plans.get(item.id)?.window
    return window ? [{ item, window }] : []
  })
  return { planned, plans }
}

/** The report windows of items, each located in `bounds` (the period's moments at its location). */
export function planReportWindows(db: Executor, items: ReportItem[], bounds: Map<string, LocationBounds>, previous: number) {
  return planWindows(db, items, reportChoice(items, bounds), previous)
}

function reportChoice(items: ReportItem[], bounds: Map<string, LocationBounds>): WindowChoice {
  return { kind: 'period', items, bounds: [...bounds.values()] }
}

/** How a report or a count chooses the windows of some of its items (the flagged ones, planned again). */
export type ChoiceFor = (items: ReportItem[]) => WindowChoice

/**
 * The cause rules' earlier windows (PREVIOUS_WINDOWS) of the flagged items: those planned with their
 * windows (read ahead), the others' windows planned again with them: reading every item's earlier windows
 * was about half of a report's plan, and a bar flags few items. An item whose window moved between the
 * two reads (a count recorded meanwhile) gets none.
 */
async function flaggedEarlier(db: Executor, flagged: ScoredItem[], choiceFor: ChoiceFor): Promise<EarlierWindows[]> {
  const unread = flagged.filter((entry) => entry.window.earlier === undefined).map((entry) => entry.item)
  const plans = unread.length === 0 ? new Map<string, ItemPlan>() : await plannedWindows(db, choiceFor(unread), PREVIOUS_WINDOWS)
  return flagged.map(({ item, window }) => {
    if (window.earlier !== undefined) return window.earlier
    const again = plans.get(item.id)?.window
    const same = again?.opening.countId === window.opening.countId && again.closing.countId === window.closing.countId
    return (same && again.earlier) || []
  })
}

/**
 * Up to this many windows, a report or a count reads ahead what the cause rules read of a flagged item:
 * each window is planned with its earlier windows and measured walked, flagged or not. A flagged item
 * then needs no second plan and no second measure, about nine round trips to the database on the
 * answer's path (a report made again for the item a count named); one not flagged costs its earlier
 * windows' JSON in the plan and a read of day nets. Above it (a whole report, a count of the bar) only
 * the few flagged items are read again.
 */
const READ_AHEAD_WINDOWS = 16

/** The windows of `items` chosen by `choice`, planned and scored (planWindows, scoreItems), few of them read ahead. */
export async function scoredWindows(db: Executor, tenant: Tenant, items: ReportItem[], choice: WindowChoice, threshold: number) {
  const ahead = windowsChosen(choice) <= READ_AHEAD_WINDOWS
  const { planned, plans } = await planWindows(db, items, choice, ahead ? PREVIOUS_WINDOWS : 0)
  return { scored: await scoreItems(db, tenant, planned, threshold, ahead), plans }
}

/** Each count time's ISO form, once per Date (a report's items counted together share their counts' Dates). */
const isoForms = new WeakMap<Date, string>()

function isoOf(date: Date): string {
  let iso = isoForms.get(date)
  if (iso === undefined) isoForms.set(date, (iso = date.toISOString()))
  return iso
}

/** `salesUnits`: the expected usage as answered. Decimals are answered from the database's strings where the window has them. */
function windowOut(measured: MeasuredWindow, salesUnits: number): VarianceItem['window'] {
  return {
    opening_count_id: measured.opening.countId,
    opening_counted_at: isoOf(measured.opening.countedAt),
    opening: quantityOut(measured.opening.quantity),
    deliveries: quantityOut(measured.totals.deliveries),
    closing: quantityOut(measured.closing.quantity),
    closing_count_id: measured.closing.countId,
    closing_counted_at: isoOf(measured.closing.countedAt),
    sales_units: salesUnits,
    sale_lines: measured.saleLines,
    transfers_in: quantityOut(measured.totals.transfersIn),
    transfers_out: quantityOut(measured.totals.transfersOut),
    recorded_waste: quantityOut(measured.totals.waste),
    recorded_waste_cost: moneyOut(measured.totals.wasteCost),
  }
}

/** Measures each planned window (walked, with `walk`) and whether its variance percentage is above the threshold. */
async function scoreItems(db: Executor, tenant: Tenant, planned: PlannedItem[], threshold: number, walk: boolean): Promise<ScoredItem[]> {
  const measured = await measureWindows(db, tenant, planned, walk)
  const money = await windowMoney(
    db,
    tenant,
    planned.map((plan, index) => ({ item: plan.item, window: plan.window, measured: measured[index] as MeasuredWindow })),
  )
  return planned.map((plan, index) => {
    const window = measured[index] as MeasuredWindow
    const variance = unexplainedUsage(window)
    const percentage = varianceRate(variance, window.expected)
    const size = Math.abs(percentage)
    // Every field named, none spread: V8 builds a literal with spread and more fields slowly, a thousand times here.
    return {
      item: plan.item,
      window: plan.window,
      measured: window,
      money: money[index] as WindowMoney,
      variance,
      percentage,
      aboveThreshold: size > threshold,
      highVariance: size > 2 * threshold,
    }
  })
}

/** A scored window as a span of its item's history: after its opening count, up to its closing count. */
function windowSpan({ item, measured }: ScoredItem): HistorySpan {
  return { itemId: item.id, from: measured.opening.countedAt, to: measured.closing.countedAt }
}

/** The live items of locations, by location id (itemsInScope of the location alone): what unmapped POS names are matched among there. */
export type Catalogues = Map<string, ReportItem[]>

/**
 * The catalogues a report's scope is: its items, when the query names a location and nothing narrower (a
 * count's items, or a report of one location); none otherwise.
 */
export function cataloguesIn(scope: { location?: string | undefined; category?: string | undefined }, items: ReportItem[]): Catalogues {
  return new Map<string, ReportItem[]>(scope.location !== undefined && scope.category === undefined ? [[scope.location, items]] : [])
}

/** The catalogues of `locations`: those `read` holds, the others read. */
async function cataloguesOf(db: Executor, tenant: Tenant, locations: Iterable<string>, read: Catalogues): Promise<Catalogues> {
  const ids = [...new Set(locations)]
  const catalogues = await Promise.all(ids.map(async (location) => read.get(location) ?? (await itemsInScope(db, tenant, { location }))))
  return new Map(ids.map((location, index) => [location, catalogues[index] as ReportItem[]]))
}

/**
 * An item's earlier windows' facts split at its window's opening count: those before it, and those inside
 * the window (when it spans more than two counts).
 */
function splitAtOpening(entry: ScoredItem, earlier: EarlierWindows, facts: WindowFacts[]): { previous: WindowFacts[]; inside: WindowFacts[] } {
  const opening = entry.measured.opening.countedAt.getTime()
  let before = 0
  while (before < earlierCount(earlier) && Math.trunc(earlierClosedAt(earlier, before)) <= opening) before++
  return { previous: facts.slice(0, before), inside: facts.slice(before) }
}

/** What the cause rules read of a flagged item's own history: its window walked, the windows before and inside it. */
interface HistoryFacts {
  window: WindowFacts
  previous: WindowFacts[]
  inside: WindowFacts[]
}

/** What they read of the report's context: unmapped sales like each item at its location, and the items sold in their own unit. */
interface ContextFacts {
  unmappedSimilar: Map<string, UnmappedSimilar[]>
  soldInOwnUnit: Set<string>
}

/** The flagged windows walked for their lowest theoretical stock, and the windows before and inside them, in order. */
async function historyFactsOf(db: Executor, tenant: Tenant, flagged: ScoredItem[], choiceFor: ChoiceFor): Promise<HistoryFacts[]> {
  // Only the reported window's lowest theoretical stock matters to the rules: the others are not walked.
  const readEarlier = async () => {
    const windows = await flaggedEarlier(db, flagged, choiceFor)
    const facts = await earlierFacts(
      db,
      tenant,
      flagged.map((entry, index) => ({ item: entry.item, earlier: windows[index] as EarlierWindows })),
    )
    return { windows, facts }
  }
  const [walked, earlier] = await Promise.all([walkedFacts(db, tenant, flagged), readEarlier()])
  return flagged.map((entry, index) => ({
    window: walked[index] as WindowFacts,
    ...splitAtOpening(entry, earlier.windows[index] as EarlierWindows, earlier.facts[index] as WindowFacts[]),
  }))
}

/**
 * The unmapped sales at the flagged items' locations (matched among that location's items: the causes do
 * not depend on the report's scope) and whether each is sold in its own unit.
 */
async function contextFactsOf(db: Executor, tenant: Tenant, flagged: ScoredItem[], catalogues: Catalogues): Promise<ContextFacts> {
  const spans = flagged.map(windowSpan)
  const [unmappedSimilar, soldInOwnUnit] = await Promise.all([
    unmappedSimilarTo(db, tenant, flagged, () =>
      cataloguesOf(
        db,
        tenant,
        flagged.map((entry) => entry.item.location_id),
        catalogues,
      ),
    ),
    itemsSoldInOwnUnit(db, tenant, spans),
  ])
  return { unmappedSimilar, soldInOwnUnit }
}

/** One flagged item's part of the context facts. */
interface ItemContext {
  unmappedSimilar: UnmappedSimilar[]
  soldInOwnUnit: boolean
}

function contextOfItem(context: ContextFacts, itemId: string): ItemContext {
  return { unmappedSimilar: context.unmappedSimilar.get(itemId) ?? [], soldInOwnUnit: context.soldInOwnUnit.has(itemId) }
}

/** What a flagged item's causes were ranked from: its own history, and its part of the report's context. */
interface RankedFrom {
  history: HistoryFacts
  context: ItemContext
}

function rankedCauses(entry: ScoredItem, { history, context }: RankedFrom, threshold: number) {
  return rankCauses({ threshold, ...history, ...context, sizeMl: entry.item.size_ml })
}

type Causes = ReturnType<typeof rankCauses>

/**
 * Causes for each item above the threshold (by item id), from its own history (its window, its earlier
 * windows and those inside it) and the report's context: what they were ranked from (`rankedFrom`) is kept
 * by the report to rank them again in another context.
 */
async function causesWithHistory(db: Executor, tenant: Tenant, scored: ScoredItem[], threshold: number, choiceFor: ChoiceFor, catalogues: Catalogues) {
  const flagged = scored.filter((entry) => entry.aboveThreshold)
  const causes = new Map<string, Causes>()
  const rankedFrom = new Map<string, RankedFrom>()
  if (flagged.length === 0) return { causes, rankedFrom }
  const [histories, context] = await Promise.all([historyFactsOf(db, tenant, flagged, choiceFor), contextFactsOf(db, tenant, flagged, catalogues)])
  flagged.forEach((entry, index) => {
    const from = { history: histories[index] as HistoryFacts, context: contextOfItem(context, entry.item.id) }
    rankedFrom.set(entry.item.id, from)
    causes.set(entry.item.id, rankedCauses(entry, from, threshold))
  })
  return { causes, rankedFrom }
}

/** Causes for each item above the threshold, by item id; `catalogues` as read already (cataloguesIn). */
export async function causesOf(db: Executor, tenant: Tenant, scored: ScoredItem[], threshold: number, choiceFor: ChoiceFor, catalogues: Catalogues): Promise<Map<string, Causes>> {
  return (await causesWithHistory(db, tenant, scored, threshold, choiceFor, catalogues)).causes
}

/**
 * Causes of flagged items whose history facts were kept, ranked again in the context as it stands, by
 * item id, with what they were ranked from: only those whose part of the context changed (the others'
 * causes, and their answered bytes, stay as they were).
 */
async function causesInContext(
  db: Executor,
  tenant: Tenant,
  flagged: { entry: ScoredItem; rankedFrom: RankedFrom }[],
  threshold: number,
  catalogues: Catalogues,
): Promise<Map<string, { causes: Causes; rankedFrom: RankedFrom }>> {
  const ranked = new Map<string, { causes: Causes; rankedFrom: RankedFrom }>()
  if (flagged.length === 0) return ranked
  const context = await contextFactsOf(
    db,
    tenant,
    flagged.map(({ entry }) => entry),
    catalogues,
  )
  for (const { entry, rankedFrom } of flagged) {
    const now = contextOfItem(context, entry.item.id)
    // The same facts (every field), with the history and the threshold kept: the same causes.
    if (isDeepStrictEqual(rankedFrom.context, now)) continue
    const from = { history: rankedFrom.history, context: now }
    ranked.set(entry.item.id, { causes: rankedCauses(entry, from, threshold), rankedFrom: from })
  }
  return ranked
}

/**
 * A scored item in the report's shape (`answer`), with its loss and expected cost for the totals (exact,
 * scaled to COST_PLACES), both at the costs of the window's time.
 */
export function itemOut(entry: ScoredItem, causes: ReturnType<typeof rankCauses>): { answer: VarianceItem; loss: bigint; expectedCost: bigint } {
  const { item, measured, variance, money } = entry
  const loss = money.varianceCost
  const expected = quantityOut(measured.totals.usage)
  const answer: VarianceItem = {
    inventory_item_id: item.id,
    name: item.name,
    location: item.location_id,
    unit: item.unit,
    expected_consumption: expected,
    actual_consumption: scaledOut(measured.actual, QUANTITY_PLACES, QUANTITY_STORED_DECIMALS),
    variance: scaledOut(variance, QUANTITY_PLACES, QUANTITY_STORED_DECIMALS),
    variance_percentage: entry.percentage,
    estimated_loss: scaledOut(loss, COST_PLACES, MONEY_DECIMALS),
    potential_causes: causes.map((cause) => cause.cause),
    cause_evidence: causes,
    window: windowOut(measured, expected),
    recorded_waste_cost: moneyOut(measured.totals.wasteCost),
  }
  return { answer, loss, expectedCost: money.expectedCost }
}

/** An answered item's causes, set after it was answered (itemOut's two fields). */
function setCauses(answer: VarianceItem, causes: ReturnType<typeof rankCauses>): void {
  answer.potential_causes = causes.map((cause) => cause.cause)
  answer.cause_evidence = causes
}

/** Largest absolute loss first (exact), then by name (one collator: a report sorts a thousand). */
function largestLossFirst<Entry extends { loss: bigint; answer: { name: string } }>(entries: Entry[]): Entry[] {
  const byName = new Intl.Collator()
  const keyed = entries.map((entry) => ({ entry, size: entry.loss < 0n ? -entry.loss : entry.loss }))
  keyed.sort((a, b) => (b.size > a.size ? 1 : b.size < a.size ? -1 : byName.compare(a.entry.answer.name, b.entry.answer.name)))
  return keyed.map(({ entry }) => entry)
}

/**
 * The losses and the gains of the items apart (exact, COST_PLACES), the gain as a positive amount: the
 * net total lets a false gain (a move nobody recorded) hide a real loss.
 */
export function grossOf(entries: { loss: bigint }[]): { grossLoss: bigint; grossGain: bigint } {
  let grossLoss = 0n
  let grossGain = 0n
  for (const { loss } of entries) {
    if (loss > 0n) grossLoss += loss
    else grossGain -= loss
  }
  return { grossLoss, grossGain }
}

/** The moments the report measured: its windows' earliest opening and latest closing count. */
function periodMeasured(scored: ScoredItem[]): { from: string; to: string } {
  const openings = scored.map((entry) => entry.measured.opening.countedAt.getTime())
  const closings = scored.map((entry) => entry.measured.closing.countedAt.getTime())
  return { from: new Date(Math.min(...openings)).toISOString(), to: new Date(Math.max(...closings)).toISOString() }
}

/** The cost of the waste recorded in the scored windows, by item and reason. */
function recordedWasteByItem(db: Executor, scored: ScoredItem[]): Promise<Map<string, Map<string, string>>> {
  const withWaste = scored.filter((entry) => entry.measured.waste !== 0n)
  return wasteCostByItemAndReason(db, withWaste.map(windowSpan))
}

/**
 * The cost of the waste recorded in the report's windows, in all and by reason (money, 2 decimals), the
 * reasons in order (WASTE_REASONS are lowercase ASCII: the same order in JavaScript as in the database).
 */
function recordedWaste(explained: Explained[]) {
  const byReason = new Map<string, Big>()
  const costs: Big[] = []
  for (const { entry, waste } of explained) {
    if (entry.measured.waste === 0n) continue
    costs.push(decimal(entry.measured.totals.wasteCost))
    for (const [reason, cost] of waste ?? []) byReason.set(reason, (byReason.get(reason) ?? ZERO).plus(cost))
  }
  return {
    recorded_waste_cost: moneyOut(sum(costs)),
    waste_by_reason: Object.fromEntries([...byReason.keys()].sort().map((reason) => [reason, moneyOut(byReason.get(reason) as Big)])),
  }
}

/** What data quality reads of the period's sales at the items' locations. */
interface SalesQuality {
  revenue: PosRevenue
  /** Sale lines that depleted an item in scope from another location (theirs does not stock the SKU). */
  crossLocationLines: number
}

async function salesQualityOf(db: Executor, tenant: Tenant, period: ReportPeriod, items: ReportItem[], bounds: Map<string, LocationBounds>): Promise<SalesQuality> {
  const locations = [...new Set(items.map((item) => item.location_id))]
  const [revenue, crossLocationLines] = await Promise.all([
    posRevenue(db, tenant, { locations, from: period.from, to: period.to, top: UNMAPPED_LISTED }),
    crossLocationSaleLines(
      db,
      tenant,
      items.map((item) => item.id),
      locations.map((location) => boundsOf(bounds, location)),
    ),
  ])
  return { revenue, crossLocationLines }
}

/** The report's items whose closing count was taken by weight (an open container weighed), not by eye. */
function closingCountsByWeight(db: Executor, scored: ScoredItem[]): Promise<Set<string>> {
  return itemsCountedByWeight(
    db,
    scored.map(({ item, measured }) => ({ countId: measured.closing.countId, itemId: item.id })),
  )
}

/** How many items' latest count is older than STALE_COUNT_DAYS before the end of the period at their location. */
function staleCountItems(items: ReportItem[], plans: Map<string, ItemPlan>, bounds: Map<string, LocationBounds>): number {
  return items.filter((item) => {
    const latest = plans.get(item.id)?.latestCountedAt
    const end = boundsOf(bounds, item.location_id).end
    return latest !== undefined && end.getTime() - latest > STALE_COUNT_DAYS * DAY_MS
  }).length
}

/** What data quality reads of the windows: none of it depends on the period's sales. */
interface CountQuality {
  items: ReportItem[]
  planned: number
  countedByWeight: number
  stale: number
}

function dataQuality({ revenue, crossLocationLines }: SalesQuality, scope: CountQuality) {
  const total = decimal(revenue.revenue)
  return {
    mapped_revenue_share: total.eq(0) ? 0 : toApiNumber(decimal(revenue.mappedRevenue).div(total), 4),
    items_counted_share: scope.items.length === 0 ? 0 : toApiNumber(decimal(scope.planned).div(scope.items.length), 4),
    items_without_counts: scope.items.length - scope.planned,
    stale_count_items: scope.stale,
    items_counted_by_weight: scope.countedByWeight,
    items_counted_by_eye: scope.planned - scope.countedByWeight,
    unmapped_pos_items: revenue.unmapped.map((entry) => ({ ...entry, revenue: moneyOut(entry.revenue) })),
    cross_location_lines: crossLocationLines,
  }
}

/** An item of the report: its window scored, and answered; above the threshold, what its causes were ranked from. */
interface Explained {
  entry: ScoredItem
  out: ReturnType<typeof itemOut>
  rankedFrom: RankedFrom | undefined
  /** The cost of the waste recorded in its window, by reason (decimal strings); undefined without any. */
  waste: Map<string, string> | undefined
}

/** Items' report windows explained, and what the report reads of those windows beside them. */
interface ExplainedWindows {
  /** Those with a window, in the items' order. */
  explained: Explained[]
  plans: Map<string, ItemPlan>
  /** The items whose closing count was weighed. */
  weighed: Set<string>
}

/**
 * The items' report windows, scored, with the causes of those above the threshold and the waste recorded
 * in them, every item’s plan, and the items whose closing count was weighed.
 */
async function explainWindows(
  db: Executor,
  tenant: Tenant,
  items: ReportItem[],
  bounds: Map<string, LocationBounds>,
  threshold: number,
  catalogues: Catalogues,
): Promise<ExplainedWindows> {
  const { scored, plans } = await scoredWindows(db, tenant, items, reportChoice(items, bounds), threshold)
  // The closing counts' methods and the recorded waste read only the scored windows: read beside the causes, not after them.
  const reads = Promise.all([
    causesWithHistory(db, tenant, scored, threshold, (flagged) => reportChoice(flagged, bounds), catalogues),
    closingCountsByWeight(db, scored),
    recordedWasteByItem(db, scored),
  ])
  // While the database reads, the items are answered (none of it depends on the causes); their causes are set after.
  const explained = scored.map((entry): Explained => ({ entry, out: itemOut(entry, []), rankedFrom: undefined, waste: undefined }))
  const [{ causes, rankedFrom }, weighed, waste] = await reads
  for (const item of explained) {
    setCauses(item.out.answer, causes.get(item.entry.item.id) ?? [])
    item.rankedFrom = rankedFrom.get(item.entry.item.id)
    item.waste = waste.get(item.entry.item.id)
  }
  return { explained, plans, weighed }
}

/** Everything a variance report is made of, kept to make it again when only some of its items changed. */
interface VarianceMaking {
  query: VarianceQuery
  period: ReportPeriod
  currency: string
  threshold: number
  bounds: Map<string, LocationBounds>
  /** The report's scope, in its order. */
  items: ReportItem[]
  windows: ExplainedWindows
}

/**
 * How far a variance report's data reaches, for the report cache: its windows close at counts before the
 * end of the period's last business day at their location, and its data quality reads the period's
 * sales and daily rollups, so a sale, its usage or a stock movement after the latest of those ends, or a
 * rollup of a later business day, cannot change it; nor can stock on hand, which it does not read.
 */
function periodHorizon(period: ReportPeriod, bounds: Map<string, LocationBounds>): ChangeHorizon | undefined {
  const ends = [...bounds.values()].map((location) => location.end.getTime())
  return ends.length === 0 ? undefined : { at: new Date(Math.max(...ends)), day: period.to }
}

/**
 * The variance report (DECISIONS, Analytics → Variance): per item with two counts, the window from its
 * opening to its closing count, actual against expected usage, the loss, and for items above the
 * threshold the ranked likely causes; totals, summary and data quality. Computed from the data as it
 * stands. Throws invalid_parameter, invalid_date_range, location_not_found, insufficient_data.
 */
export async function varianceReport(db: Executor, tenant: Tenant, query: VarianceQuery, now = new Date()): Promise<VarianceReport> {
  return (await refreshableVarianceReport(db, tenant, query, now)).data
}

/**
 * The variance report as the report cache keeps it: with its period's horizon, and made of one part per
 * item (its window, scored, with its causes) and what is read beside them (data quality's sales). Every
 * item is read from its own rows, so a change that names its items (a count, a delivery, waste, a
 * transfer) changes only theirs, and a sale, its usage or a movement after the latest closing count, or a
 * rollup of a later day, only the period's sales that data quality reads (the windows read whole business
 * days from the rollups, up to the day before a closing count's). A change of what scopes the report or
 * matches POS names among its items (an item's name, unit, size, category, location) names no item: it
 * reaches them all.
 */
export async function refreshableVarianceReport(db: Executor, tenant: Tenant, query: VarianceQuery, now = new Date()): Promise<Computed<VarianceReport>> {
  const period = reportPeriod(query, now)
  const context = await reportContext(db, tenant, query, period)
  const { bounds, items, threshold } = context
  // Data quality's sales read only the rollups and the few cross-location rows: they are read while the windows are worked on.
  const [windows, sales] = await Promise.all([explainWindows(db, tenant, items, bounds, threshold, cataloguesIn(query, items)), salesQualityOf(db, tenant, period, items, bounds)])
  return madeReport(db, tenant, { query, period, ...context, windows }, sales)
}

/** What scopes and configures a variance report: its currency and threshold, its locations' moments, its items. */
type ReportContext = Pick<VarianceMaking, 'currency' | 'threshold' | 'bounds' | 'items'>

/** The report's context as it stands. Throws location_not_found. */
async function reportContext(db: Executor, tenant: Tenant, query: VarianceQuery, period: ReportPeriod): Promise<ReportContext> {
  // One round trip for all four: the location is checked (location_not_found) before anything is answered.
  const [settings, bounds, items] = await Promise.all([
    getSettings(db, tenant),
    locationBounds(db, tenant, period),
    itemsInScope(db, tenant, query),
    query.location ? getLocation(db, tenant, query.location) : undefined,
  ])
  return { currency: settings.currency, threshold: query.threshold ?? settings.variance_threshold, bounds, items }
}

/** The report made of `making` and the period's sales, with how the cache makes it again. */
function madeReport(db: Executor, tenant: Tenant, making: VarianceMaking, sales: SalesQuality): Computed<VarianceReport> {
  const data = reportOf(making, sales)
  return {
    data,
    horizon: periodHorizon(making.period, making.bounds),
    part: {
      horizon: windowsHorizon(making),
      again: (changed, context) => (context ? madeAgainInContext(db, tenant, making, changed) : madeAgain(db, tenant, making, changed)),
    },
  }
}

/**
 * How far forward the report's windows read: up to their latest closing count, and the whole business days
 * they read from the rollups end before the business day of their closing count at its location.
 */
function windowsHorizon({ windows, bounds }: VarianceMaking): ChangeHorizon {
  const latestAt = new Map<string, number>()
  for (const { entry } of windows.explained) {
    const closing = entry.measured.closing.countedAt.getTime()
    if (closing > (latestAt.get(entry.item.location_id) ?? -Infinity)) latestAt.set(entry.item.location_id, closing)
  }
  const days = [...latestAt].map(([location, at]) => {
    const { timezone, cutoff } = boundsOf(bounds, location)
    return businessDayAt(new Date(at), timezone, cutoff)
  })
  const lastDay = days.reduce((latest, day) => (day > latest ? day : latest))
  return { at: new Date(Math.max(...latestAt.values())), day: shiftDate(lastDay, -1) }
}

/** The report made again with the windows of the `changed` items explained again, and the period's sales read again. */
async function madeAgain(db: Executor, tenant: Tenant, making: VarianceMaking, changed: ReadonlySet<string>): Promise<Computed<VarianceReport>> {
  const items = making.items.filter((item) => changed.has(item.id))
  const { bounds, threshold } = making
  const [again, sales] = await Promise.all([
    items.length === 0 ? undefined : explainWindows(db, tenant, items, bounds, threshold, cataloguesIn(making.query, making.items)),
    salesQualityOf(db, tenant, making.period, making.items, bounds),
  ])
  if (!again) return madeReport(db, tenant, making, sales)
  return madeReport(db, tenant, { ...making, windows: withItemsAgain(making, changed, again) }, sales)
}

/**
 * The report made again after its context changed (a setting, a location, an item's row, a mapping, a
 * recipe, a sale line: tenant_changes.reaches_history false), with the windows of the `named` items
 * explained again. The context is read again; with another threshold or other moments of a location the
 * report is computed whole (undefined). Otherwise the items whose row changed or that came into scope are
 * explained again with the named ones, the others keep their scored windows (what was counted, moved,
 * sold and paid did not change), and the kept flagged items' causes are ranked again from the history
 * facts they were ranked from and the context read again: the unmapped sales matched among the
 * location's items, and the sale lines read through their mappings.
 */
async function madeAgainInContext(db: Executor, tenant: Tenant, making: VarianceMaking, named: ReadonlySet<string>): Promise<Computed<VarianceReport> | undefined> {
  const context = await reportContext(db, tenant, making.query, making.period)
  if (context.threshold !== making.threshold || !sameBounds(context.bounds, making.bounds)) return undefined
  const changed = itemsChangedIn(making, context, named)
  const inScope = new Set(context.items.map((item) => item.id))
  const keeps = (id: string) => inScope.has(id) && !changed.has(id)
  const kept = making.windows.explained.filter(({ entry }) => keeps(entry.item.id))
  const keptFlagged = kept.flatMap(({ entry, rankedFrom }) => (rankedFrom ? [{ entry, rankedFrom }] : []))
  const { bounds, threshold } = context
  const catalogues = cataloguesIn(making.query, context.items)
  const [again, keptCauses, sales] = await Promise.all([
    explainWindows(
      db,
      tenant,
      context.items.filter((item) => changed.has(item.id)),
      bounds,
      threshold,
      catalogues,
    ),
    causesInContext(db, tenant, keptFlagged, threshold, catalogues),
    salesQualityOf(db, tenant, making.period, context.items, bounds),
  ])
  const keptWindows = keptWindowsWith(making.windows, kept, keeps, keptCauses)
  const windows = withItemsAgain({ ...making, ...context, windows: keptWindows }, changed, again)
  return madeReport(db, tenant, { ...making, ...context, windows }, sales)
}

/** The items of the report's context to explain again: those named, and those whose row changed or that came into scope. */
function itemsChangedIn(making: VarianceMaking, context: ReportContext, named: ReadonlySet<string>): Set<string> {
  const before = new Map(making.items.map((item) => [item.id, item]))
  return new Set(context.items.filter((item) => named.has(item.id) || !sameItem(before.get(item.id), item)).map((item) => item.id))
}

/**
 * The `kept` items' windows, those of flagged items whose causes were ranked again answered with them, and
 * the plans and weighed closing counts of the items `keeps` keeps.
 */
function keptWindowsWith(
  windows: ExplainedWindows,
  kept: Explained[],
  keeps: (id: string) => boolean,
  rankedAgain: Map<string, { causes: Causes; rankedFrom: RankedFrom }>,
): ExplainedWindows {
  const explained = kept.map((item): Explained => {
    const ranked = rankedAgain.get(item.entry.item.id)
    return ranked ? { ...item, out: itemOut(item.entry, ranked.causes), rankedFrom: ranked.rankedFrom } : item
  })
  const plans = new Map([...windows.plans].filter(([id]) => keeps(id)))
  const weighed = new Set([...windows.weighed].filter(keeps))
  return { explained, plans, weighed }
}

/** Whether every location's moments of the period (time zone, cut-off, start, end) are as they were. */
function sameBounds(now: Map<string, LocationBounds>, then: Map<string, LocationBounds>): boolean {
  if (now.size !== then.size) return false
  for (const [location, bounds] of now) {
    const was = then.get(location)
    if (!was || was.timezone !== bounds.timezone || was.cutoff !== bounds.cutoff || was.start.getTime() !== bounds.start.getTime() || was.end.getTime() !== bounds.end.getTime())
      return false
  }
  return true
}

/** Whether an item's row as a report reads it is as it was (every field: its name, place, unit, size, cost). */
function sameItem(was: ReportItem | undefined, item: ReportItem): boolean {
  return (
    was !== undefined &&
    was.name === item.name &&
    was.location_id === item.location_id &&
    was.category === item.category &&
    was.unit === item.unit &&
    was.size_ml === item.size_ml &&
    was.cost_per_unit === item.cost_per_unit
  )
}

/** The report's windows with those of the `changed` items replaced by `again`, in the report's order. */
function withItemsAgain(making: VarianceMaking, changed: ReadonlySet<string>, again: ExplainedWindows): ExplainedWindows {
  const { windows } = making
  const byItem = new Map(windows.explained.map((explained) => [explained.entry.item.id, explained]))
  const plans = new Map(windows.plans)
  const weighed = new Set([...windows.weighed].filter((id) => !changed.has(id)))
  for (const id of changed) {
    byItem.delete(id)
    plans.delete(id)
  }
  for (const explained of again.explained) byItem.set(explained.entry.item.id, explained)
  for (const [id, plan] of again.plans) plans.set(id, plan)
  for (const id of again.weighed) weighed.add(id)
  return { explained: making.items.flatMap((item) => byItem.get(item.id) ?? []), plans, weighed }
}

/** The report's answer from what it is made of. Throws insufficient_data when no item has a window. */
function reportOf({ period, currency, threshold, bounds, items, windows }: VarianceMaking, sales: SalesQuality): VarianceReport {
  const { explained, plans, weighed } = windows
  if (explained.length === 0) {
    throw analyticsErrors.insufficientData(`No item in scope has two counts up to ${period.to}: count the items at the start and the end of the period`, {
      items_in_scope: items.length,
    })
  }
  const scored = explained.map(({ entry }) => entry)
  const entries = largestLossFirst(explained.map(({ out }) => out))
  const totalLoss = sumScaled(entries.map((entry) => entry.loss))
  const expectedCost = sumScaled(entries.map((entry) => entry.expectedCost))
  const { grossLoss, grossGain } = grossOf(entries)
  const counts: CountQuality = { items, planned: explained.length, countedByWeight: weighed.size, stale: staleCountItems(items, plans, bounds) }
  return {
    period: periodLabel(period),
    period_measured: periodMeasured(scored),
    threshold,
    currency,
    total_variance: scaledOut(totalLoss, COST_PLACES, MONEY_DECIMALS),
    variance_percentage: varianceRate(totalLoss, expectedCost),
    items: entries.map((entry) => entry.answer),
    summary: {
      total_items_analyzed: entries.length,
      items_above_threshold: scored.filter((entry) => entry.aboveThreshold).length,
      high_variance_items: scored.filter((entry) => entry.highVariance).length,
      gross_loss: scaledOut(grossLoss, COST_PLACES, MONEY_DECIMALS),
      gross_gain: scaledOut(grossGain, COST_PLACES, MONEY_DECIMALS),
      gross_loss_percentage: varianceRate(grossLoss, expectedCost),
      ...recordedWaste(explained),
    },
    data_quality: dataQuality(sales, counts),
  }
}
