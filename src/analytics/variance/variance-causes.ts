/**
 * Ranks the likely causes of one item's count-window variance from the window's facts, the item's
 * earlier windows, the count windows inside it (a period over several counts) and the unmapped POS items
 * that resemble it. Each cause is a small rule that returns
 * its confidence (0..1) and the numbers behind it; the ranking is by confidence. Rules, thresholds and
 * measured accuracy on a labelled set: docs/variance-causes.md.
 */

export const CAUSES = ['over_pouring', 'theft_or_breakage', 'unmapped_sales', 'unrecorded_waste', 'missing_delivery', 'conversion_error', 'count_error', 'under_pouring'] as const
export type Cause = (typeof CAUSES)[number]

/** The facts of one count window of one item, in the item's unit. */
export interface WindowFacts {
  opening: number
  deliveries: number
  closing: number
  /** Units the window's mapped sales took (expected usage). */
  expected: number
  /** Mapped sale lines in the window. */
  saleLines: number
  /** Window length in days (may be fractional). */
  days: number
  /** Lowest theoretical stock inside the window: opening + deliveries so far − sales so far, at its lowest. */
  lowestTheoretical: number
}

export interface UnmappedSimilar {
  /** POS item name, e.g. "Titos Dbl". */
  name: string
  /** Name similarity to the item, 0..1, from the auto-map matcher. */
  similarity: number
  /** POS units sold in the window. */
  quantity: number
  /** Item units those sales would have taken at the item's usual conversion, or null when unknown. */
  estimatedUnits: number | null
}

export interface CauseInput {
  /** Percentage threshold of the report (default 5). */
  threshold: number
  /** The reported window (the item's latest in the period). */
  window: WindowFacts
  /** The item's earlier windows, oldest first (up to 6). */
  previous: WindowFacts[]
  /** The count-to-count windows inside the reported window, oldest first, when it spans several counts (weekly counts in a 28-day report); none otherwise. */
  inside?: WindowFacts[]
  /** Every mapped sale line depletes exactly 1 item unit per POS unit (a bottled beer sold by the bottle): no pour can vary. */
  soldInOwnUnit?: boolean
  /** The item's size in ml, when it has one: a ratio of it (per bottle for per ml) is a unit mix-up. */
  sizeMl?: number | null
  /** Unmapped POS items sold at the item's location inside the window whose names resemble the item (similarity ≥ 0.5). */
  unmappedSimilar: UnmappedSimilar[]
}

export interface CauseEvidence {
  cause: Cause
  /** 0..1, two decimals: how strongly the facts support this cause. */
  confidence: number
  /** The numbers that support it, snake_case keys, e.g. { variance_percentage: 18.2, windows_over: 3, mean_excess_percentage: 14.1 }. */
  evidence: Record<string, number | string>
}

/** A window's variance as the report computes it (DECISIONS, Analytics → Variance). */
export interface WindowVariance {
  actual: number
  expected: number
  /** actual − expected: positive is a loss. */
  variance: number
  /** variance / expected × 100; 100 when expected is 0 and actual is not, 0 when both are. */
  percentage: number
  /** actual / expected, or null when nothing was expected. */
  ratio: number | null
  facts: WindowFacts
}

/** Measures one window's actual usage, variance, variance percentage and actual/expected ratio. */
function measureWindow(facts: WindowFacts): WindowVariance {
  const actual = facts.opening + facts.deliveries - facts.closing
  const variance = actual - facts.expected
  const percentage = facts.expected === 0 ? (actual === 0 ? 0 : 100) : (variance / facts.expected) * 100
  return {
    actual,
    expected: facts.expected,
    variance,
    percentage,
    ratio: facts.expected > 0 ? actual / facts.expected : null,
    facts,
  }
}

// ---------------------------------------------------------------------------------------------------
// Thresholds. Percentages are variance percentages; units are the item's unit.

/** Pouring moves usage by 5–25 % (DECISIONS); an earlier window counts as "over" from 3 % so that one
 * slightly lighter week inside a steady over-pour does not break the run. */
const POUR_WINDOW_MIN_PERCENT = 3
/** Beyond 25 % a pour alone is unlikely; beyond 40 % it is implausible (a double in every two or three drinks). */
const POUR_PLAUSIBLE_PERCENT = 25
const POUR_IMPLAUSIBLE_PERCENT = 40
/** A loss this many times the item's usual |variance %| is a spike, not a trend. */
const SPIKE_FACTOR = 3
/** The spike's score is full at this many times the usual level. */
const SPIKE_FULL_FACTOR = 8
/** A loss or gain within this of a whole number of units looks like whole bottles, kegs or cases. */
const WHOLE_UNIT_TOLERANCE = 0.15
/** "Few sales": units sold (expected usage) at most this share of the usage to explain (actual usage). Measured in
 * units, never in sale lines: a POS or an import may send one line a day. At half, what went unsold is at
 * least what sales took. */
const FEW_SALES_SHARE = 0.5
/** Usage at 3× (or more) what sales explain is usage without sales. */
const UNEXPLAINED_RATIO = 3
/** A conversion error is visible only over this many windows with sales. */
const CONVERSION_MIN_WINDOWS = 3
/** Coefficient of variation of actual/expected across windows: at or under 0.5 % the ratio is fixed (a
 * factor), from 1.5 % on it wanders as pours and counts do. Counting to a tenth of a bottle alone puts
 * about 1 % of noise into a week's ratio. */
const CONVERSION_STEADY_CV = 0.005
const CONVERSION_WANDERING_CV = 0.015
/** How much a perfectly fixed, factor-like ratio takes off the pouring causes' confidence. */
const POUR_STEADY_PENALTY = 0.25
/** A steady ratio inside this range is a pour (5–25 % either way, DECISIONS), outside it a wrong factor. */
const CONVERSION_RATIO_LOW = 0.75
const CONVERSION_RATIO_HIGH = 1.33
/** ml per US fluid ounce: a factor entered in oz for ml (or the reverse) makes the ratio this or its inverse. */
const ML_PER_OZ = 29.5735
/** A ratio within 2 % of a unit mix-up's factor matches it: tight, as mix-ups near 1 (a 20 oz pint mapped
 * at 16 oz: 1.25) lie among the pours, and a steady ratio is steady to about 1 %. */
const MIX_UP_TOLERANCE = 0.02
/** Mix-ups of a unit that any item may suffer, as actual / expected. */
const COMMON_MIX_UPS: readonly [string, number][] = [
  ['oz_for_ml', 1 / ML_PER_OZ],
  ['ml_for_oz', ML_PER_OZ],
  ['750ml_bottle_for_1l', 0.75],
  ['1l_bottle_for_750ml', 1000 / 750],
  ['16oz_pint_for_20oz', 20 / 16],
  ['20oz_pint_for_16oz', 16 / 20],
  ['12oz_for_16oz_pint', 16 / 12],
]
/** Unmapped units covering 70–150 % of the loss explain it; under 20 % they explain nothing. */
const UNMAPPED_EXPLAINS_MIN = 0.7
const UNMAPPED_EXPLAINS_MAX = 1.5
const UNMAPPED_EXPLAINS_NOTHING = 0.2
/** Units unknown: a resembling item sold in the window is plausible but unmeasured. */
const UNMAPPED_UNKNOWN_FIT = 0.65
/** Count error: the next window's opposite variance is within half to twice the first's size. */
const COUNT_ERROR_MIN_CLOSENESS = 0.5
/** Causes under this confidence are not reported. */
const MIN_CONFIDENCE = 0.15

// ---------------------------------------------------------------------------------------------------

/**
 * Ties in confidence go to the cause whose evidence is the more specific: a named thing (resembling
 * unmapped items, a miscount and its correction, a fixed factor, stock that rose without a delivery)
 * before a pattern of windows (one spike, a steady pour), before the residual explanation (usage without
 * sales, which any unexplained loss with few sales also fits).
 */
const SPECIFICITY: readonly Cause[] = [
  'unmapped_sales',
  'count_error',
  'conversion_error',
  'missing_delivery',
  'theft_or_breakage',
  'over_pouring',
  'under_pouring',
  'unrecorded_waste',
]

interface Facts {
  threshold: number
  current: WindowVariance
  previous: WindowVariance[]
  /** The windows the evidence counts, oldest first: the previous ones, then the count-to-count windows
   * inside the reported one when it spans several counts, else the reported window itself. */
  all: WindowVariance[]
  /** The window a one-off loss is judged in: the inside window with the largest variance %, else the reported one. */
  spike: WindowVariance
  /** `all` without `spike`: the item's usual variance. */
  others: WindowVariance[]
  /** Every sale depletes one item unit per POS unit: nothing is poured. */
  soldInOwnUnit: boolean
  unmapped: UnmappedSimilar[]
  /** 0..1: how much of the current loss resembling unmapped sales account for. */
  unmappedExplains: number
  /** 0..1: how well the last two windows look like a miscount and its correction. */
  countErrorMatch: number
  /** The item is counted in part units (0.4 of a bottle), so a variance of whole units stands out. Cans
   * and bottled beer are counted whole: every variance of theirs is whole. */
  partialCounts: boolean
  ratio: RatioSteadiness
}

/** Ranks the likely causes of the window's variance, most likely first; [] when |variance %| is within the threshold. */
export function rankCauses(input: CauseInput): CauseEvidence[] {
  const current = measureWindow(input.window)
  // Compared as the report shows it (2 decimals), so 5.000000001 % from float arithmetic is 5 %.
  if (Math.abs(round2(current.percentage)) <= input.threshold) return []
  const previous = input.previous.map(measureWindow)
  const inside = (input.inside ?? []).map(measureWindow)
  const all = [...previous, ...(inside.length >= 2 ? inside : [current])]
  const spike = inside.length >= 2 ? inside.reduce((top, w) => (w.percentage > top.percentage ? w : top)) : current
  const compared = { threshold: input.threshold, current, previous, unmapped: input.unmappedSimilar }
  // One literal with every field, none spread or added later: that made a slow dictionary object, which every rule reads.
  const facts: Facts = {
    threshold: input.threshold,
    current,
    previous,
    unmapped: input.unmappedSimilar,
    all,
    spike,
    others: all.filter((w) => w !== spike),
    soldInOwnUnit: input.soldInOwnUnit ?? false,
    unmappedExplains: unmappedFit(compared).explains,
    countErrorMatch: countErrorCloseness(compared),
    partialCounts: [...all, current].some((w) => !Number.isInteger(w.facts.opening) || !Number.isInteger(w.facts.closing)),
    ratio: measureRatio(all, current, input.sizeMl ?? null),
  }
  const ranked: CauseEvidence[] = []
  for (const rule of RULES) {
    const found = rule(facts)
    if (found && found.confidence >= MIN_CONFIDENCE) ranked.push(found)
  }
  return ranked.sort((a, b) => b.confidence - a.confidence || SPECIFICITY.indexOf(a.cause) - SPECIFICITY.indexOf(b.cause))
}

/** Steady loss of 5–25 % over several windows. */
function overPouring(facts: Facts): CauseEvidence | undefined {
  const { current, all } = facts
  if (facts.soldInOwnUnit || current.variance <= 0 || current.percentage > POUR_IMPLAUSIBLE_PERCENT) return undefined
  const over = all.filter((w) => w.percentage >= POUR_WINDOW_MIN_PERCENT && w.percentage <= POUR_IMPLAUSIBLE_PERCENT)
  const share = over.length / all.length
  // One window is no trend; the run counts in full from three windows over.
  const run = Math.min(1, (over.length - 1) / 2)
  let confidence = 0.2 + 0.6 * share * run
  if (current.percentage > POUR_PLAUSIBLE_PERCENT) confidence *= 0.6
  // Hands are never that steady: a fixed, factor-like ratio is a conversion error (that rule weighs it).
  confidence *= 1 - POUR_STEADY_PENALTY * facts.ratio.steadiness
  // Loss that unmapped sales account for is not poured away.
  confidence *= 1 - 0.5 * facts.unmappedExplains
  return found('over_pouring', confidence, {
    variance_percentage: current.percentage,
    windows_over: over.length,
    windows: all.length,
    mean_excess_percentage: mean(over.map((w) => w.percentage)),
  })
}

/** Steady gain (less used than sold) with no count or delivery to blame. */
function underPouring(facts: Facts): CauseEvidence | undefined {
  const { current, all } = facts
  // Stock that rose between counts is a delivery or a count, never a short pour.
  if (current.variance >= 0 || current.actual < 0 || -current.percentage > POUR_IMPLAUSIBLE_PERCENT) return undefined
  const under = all.filter((w) => -w.percentage >= POUR_WINDOW_MIN_PERCENT && -w.percentage <= POUR_IMPLAUSIBLE_PERCENT)
  const share = under.length / all.length
  let confidence = 0.35 + 0.4 * share
  if (-current.percentage > POUR_PLAUSIBLE_PERCENT) confidence *= 0.5
  confidence *= 1 - POUR_STEADY_PENALTY * facts.ratio.steadiness
  // Theoretical stock below zero points at a delivery that was not received.
  if (current.facts.lowestTheoretical < 0) confidence *= 0.5
  confidence *= 1 - facts.countErrorMatch
  return found('under_pouring', confidence, {
    variance_percentage: current.percentage,
    windows_under: under.length,
    windows: all.length,
    mean_shortfall_percentage: mean(under.map((w) => w.percentage)),
  })
}

/** The same factor-like actual/expected ratio in every window: a wrong conversion factor or recipe. */
function conversionError(facts: Facts): CauseEvidence | undefined {
  const { ratios, average, cv, steadiness, mixUp } = facts.ratio
  if (steadiness === 0) return undefined
  // More windows make a fixed ratio less of a coincidence.
  const windows = 0.85 + 0.05 * Math.min(3, ratios.length - CONVERSION_MIN_WINDOWS)
  const evidence: Record<string, number> = {
    variance_percentage: facts.current.percentage,
    mean_ratio: average,
    ratio_variation_percentage: cv * 100,
    windows: ratios.length,
  }
  // The factor of the unit mix-up the ratio matches (0.75: a 750 ml bottle entered for a 1 L one).
  if (mixUp !== undefined) evidence.unit_mix_up_factor = mixUp
  return found('conversion_error', steadiness * windows, evidence)
}

/** A large variance in one window, the opposite in the next: the count between them was wrong. */
function countError(facts: Facts): CauseEvidence | undefined {
  const closeness = facts.countErrorMatch
  if (closeness === 0) return undefined
  const before = facts.previous.at(-1)
  if (!before) return undefined
  return found('count_error', 0.5 + 0.45 * ((closeness - COUNT_ERROR_MIN_CLOSENESS) / (1 - COUNT_ERROR_MIN_CLOSENESS)), {
    variance_percentage: facts.current.percentage,
    variance_units: facts.current.variance,
    previous_variance_percentage: before.percentage,
    previous_variance_units: before.variance,
  })
}

/** Stock rose without a received delivery, theoretical stock went below zero, or a gain no pour explains. */
function missingDelivery(facts: Facts): CauseEvidence | undefined {
  const { current } = facts
  if (current.variance >= 0) return undefined
  const lowest = current.facts.lowestTheoretical
  const signals: number[] = []
  // Closing above opening + deliveries: stock came in that was not received.
  if (current.actual < 0) signals.push(0.9)
  // Sold more than was ever on hand on paper: the deeper, the surer.
  if (lowest < 0) signals.push(0.6 + 0.3 * clamp01(-lowest / Math.max(current.expected * 0.25, Number.EPSILON)))
  // A gain beyond any short pour.
  if (-current.percentage > POUR_IMPLAUSIBLE_PERCENT) signals.push(0.5)
  const wholeUnits = facts.partialCounts && isWholeUnits(current.variance)
  if (signals.length === 0 && !wholeUnits) return undefined
  let confidence = Math.max(0.35, ...signals)
  if (wholeUnits) confidence += 0.1
  // A missing delivery does not make the window before lose what this one gains.
  confidence *= 1 - 0.5 * facts.countErrorMatch
  return found('missing_delivery', confidence, {
    variance_percentage: current.percentage,
    variance_units: current.variance,
    stock_change: current.facts.closing - current.facts.opening,
    deliveries: current.facts.deliveries,
    lowest_theoretical: lowest,
  })
}

/** One large loss in one window, well above the item's usual variance, that sales do not explain. */
function theftOrBreakage(facts: Facts): CauseEvidence | undefined {
  const { current, spike, others, threshold } = facts
  if (current.variance <= 0 || spike.variance <= 0) return undefined
  const usual = others.length > 0 ? Math.max(mean(others.map((w) => Math.abs(w.percentage))), threshold / 2) : threshold
  const size = spike.percentage / usual
  if (size < SPIKE_FACTOR) return undefined
  const spikeScore = clamp01((size - SPIKE_FACTOR) / (SPIKE_FULL_FACTOR - SPIKE_FACTOR))
  // A one-off needs a clean history; with none, it is half believed.
  const cleanWindows = others.filter((w) => Math.abs(w.percentage) <= threshold).length
  const clean = others.length > 0 ? cleanWindows / others.length : 0.5
  const wholeUnits = facts.partialCounts && isWholeUnits(spike.variance)
  let confidence = 0.3 + 0.25 * spikeScore + 0.25 * clean + (wholeUnits ? 0.1 : 0)
  // With few sales, usage without sales is as likely unrecorded waste; with none, more likely.
  if (spike.expected === 0) confidence *= 0.7
  else if (isFewSales(spike)) confidence *= 0.85
  confidence *= 1 - facts.unmappedExplains
  confidence *= 1 - 0.6 * facts.countErrorMatch
  return found('theft_or_breakage', confidence, {
    variance_percentage: current.percentage,
    variance_units: spike.variance,
    spike_variance_percentage: spike.percentage,
    usual_variance_percentage: usual,
    clean_windows: cleanWindows,
    windows: facts.all.length,
  })
}

/** Resembling unmapped POS items sold in the window, sized against the loss. */
function unmappedSales(facts: Facts): CauseEvidence | undefined {
  const fit = unmappedFit(facts)
  if (fit.explains === 0) return undefined
  const evidence: Record<string, number> = {
    variance_percentage: facts.current.percentage,
    variance_units: facts.current.variance,
    unmapped_items: facts.unmapped.length,
    unmapped_quantity: sum(facts.unmapped.map((u) => u.quantity)),
    best_similarity: fit.similarity,
  }
  if (fit.estimatedUnits !== null) {
    evidence.estimated_units = fit.estimatedUnits
    evidence.share_of_variance_percentage = fit.coverage * 100
  }
  return found('unmapped_sales', 0.95 * fit.explains, evidence)
}

/** Usage with few or no sales behind it (comps, spills, staff drinks), the more so when it recurs. */
function unrecordedWaste(facts: Facts): CauseEvidence | undefined {
  const { current, all, threshold } = facts
  if (current.variance <= 0 || !isUsageWithoutSales(current)) return undefined
  // The windows before the latest one the evidence counts (earlier ones, and earlier weeks inside the period).
  const before = all.slice(0, -1)
  const recurring = before.filter((w) => w.percentage > threshold && isUsageWithoutSales(w)).length
  // Nothing earlier to compare with: the recurrence is unknown, not absent.
  const recurrence = before.length > 0 ? recurring / before.length : 0.3
  const mostlyUnsold = current.ratio === null || current.ratio >= UNEXPLAINED_RATIO ? 0.1 : 0
  const confidence = (0.45 + mostlyUnsold + 0.35 * recurrence) * (1 - 0.5 * facts.unmappedExplains)
  return found('unrecorded_waste', confidence, {
    variance_percentage: current.percentage,
    variance_units: current.variance,
    units_sold: current.expected,
    usage_units: current.actual,
    sold_share_percentage: current.actual > 0 ? (current.expected / current.actual) * 100 : 0,
    recurring_windows: recurring,
  })
}

const RULES: ((facts: Facts) => CauseEvidence | undefined)[] = [
  overPouring,
  theftOrBreakage,
  unmappedSales,
  unrecordedWaste,
  missingDelivery,
  conversionError,
  countError,
  underPouring,
]

// ---------------------------------------------------------------------------------------------------

interface RatioSteadiness {
  /** actual/expected of the windows with sales. */
  ratios: number[]
  average: number
  /** Coefficient of variation of the ratios. */
  cv: number
  /** 0..1: 1 when the ratio is fixed like a factor, 0 when it wanders like pours and counts do, or is
   * inside the range a pour moves it (a steady 5–25 % excess is a pour, not a factor). */
  steadiness: number
  /** The factor of the unit mix-up the average matches, if any. */
  mixUp: number | undefined
}

function measureRatio(all: WindowVariance[], current: WindowVariance, sizeMl: number | null): RatioSteadiness {
  const ratios: number[] = []
  for (const w of all) if (w.ratio !== null && w.facts.saleLines !== 0) ratios.push(w.ratio)
  const average = mean(ratios)
  const none = { ratios, average, cv: 0, steadiness: 0, mixUp: undefined }
  if (ratios.length < CONVERSION_MIN_WINDOWS || current.ratio === null || average <= 0) return none
  const mixUp = unitMixUp(average, sizeMl)
  if (!mixUp && average >= CONVERSION_RATIO_LOW && average <= CONVERSION_RATIO_HIGH) return none
  const cv = standardDeviation(ratios) / average
  const steadiness = clamp01((CONVERSION_WANDERING_CV - cv) / (CONVERSION_WANDERING_CV - CONVERSION_STEADY_CV))
  return { ratios, average, cv, steadiness, mixUp }
}

/** The factor of the unit mix-up a ratio of actual to expected matches within MIX_UP_TOLERANCE, if any. */
function unitMixUp(ratio: number, sizeMl: number | null): number | undefined {
  const matches = (factor: number) => Math.abs(ratio / factor - 1) <= MIX_UP_TOLERANCE
  for (const [, factor] of COMMON_MIX_UPS) if (matches(factor)) return factor
  if (!sizeMl) return undefined
  // Per bottle for per ml, per ml for per bottle, per bottle for per oz, per oz for per bottle.
  return [1 / sizeMl, sizeMl, ML_PER_OZ / sizeMl, sizeMl / ML_PER_OZ].find(matches)
}

interface UnmappedFit {
  /** 0..1: how well the resembling unmapped sales account for the loss. */
  explains: number
  similarity: number
  estimatedUnits: number | null
  coverage: number
}

function unmappedFit(facts: Pick<Facts, 'current' | 'unmapped'>): UnmappedFit {
  const { current, unmapped } = facts
  const none: UnmappedFit = { explains: 0, similarity: 0, estimatedUnits: null, coverage: 0 }
  const sold = unmapped.filter((u) => u.quantity > 0)
  if (current.variance <= 0 || sold.length === 0) return none
  const top = sold.reduce((best, u) => (u.similarity > best.similarity ? u : best))
  const known = sold.filter((u) => u.estimatedUnits !== null)
  const estimatedUnits = known.length > 0 ? sum(known.map((u) => u.estimatedUnits ?? 0)) : null
  const coverage = estimatedUnits === null ? 0 : estimatedUnits / current.variance
  let fit: number
  if (estimatedUnits === null) fit = UNMAPPED_UNKNOWN_FIT
  else if (coverage < UNMAPPED_EXPLAINS_MIN) fit = clamp01((coverage - UNMAPPED_EXPLAINS_NOTHING) / (UNMAPPED_EXPLAINS_MIN - UNMAPPED_EXPLAINS_NOTHING))
  else if (coverage <= UNMAPPED_EXPLAINS_MAX) fit = 1
  // Far more than the loss: the estimate or the match is off; still a lead.
  else fit = Math.max(0.3, 1 - (coverage - UNMAPPED_EXPLAINS_MAX) / 3)
  // A name at the matcher's floor (0.5) is half as telling as an exact one.
  const nameWeight = 0.7 + 0.3 * clamp01((top.similarity - 0.5) / 0.5)
  return { explains: fit * nameWeight, similarity: top.similarity, estimatedUnits, coverage }
}

/** 0..1: the last two windows are a large variance and its opposite of about the same size. */
function countErrorCloseness(facts: Pick<Facts, 'current' | 'previous' | 'threshold'>): number {
  const before = facts.previous.at(-1)
  const { current, threshold } = facts
  if (!before || (before.expected === 0 && before.actual === 0)) return 0
  if (Math.abs(before.percentage) <= threshold || Math.sign(before.variance) === Math.sign(current.variance)) return 0
  const sizes = [Math.abs(before.variance), Math.abs(current.variance)]
  const closeness = Math.min(...sizes) / Math.max(...sizes)
  return closeness >= COUNT_ERROR_MIN_CLOSENESS ? closeness : 0
}

/** Sales took at most FEW_SALES_SHARE of the usage: in units sold, whatever the number of lines. */
function isFewSales(w: WindowVariance): boolean {
  return w.expected <= FEW_SALES_SHARE * w.actual
}

function isUsageWithoutSales(w: WindowVariance): boolean {
  return w.actual > 0 && (w.expected === 0 || isFewSales(w))
}

function isWholeUnits(units: number): boolean {
  const whole = Math.round(Math.abs(units))
  return whole >= 1 && Math.abs(Math.abs(units) - whole) <= WHOLE_UNIT_TOLERANCE
}

/** `evidence` is the rule's own fresh object: its numbers are rounded in place. */
function found(cause: Cause, confidence: number, evidence: Record<string, number | string>): CauseEvidence {
  for (const key in evidence) {
    const value = evidence[key]
    if (typeof value === 'number') evidence[key] = round2(value)
  }
  return { cause, confidence: round2(clamp01(confidence)), evidence }
}

function round2(value: number): number {
  const rounded = Math.round(value * 100) / 100
  return Object.is(rounded, -0) ? 0 : rounded
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0)
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : sum(values) / values.length
}

function standardDeviation(values: number[]): number {
  const average = mean(values)
  return Math.sqrt(mean(values.map((value) => (value - average) ** 2)))
}
