/**
 * Ranks the likely causes of one item's count-window variance from the window's facts, the item's
 * earlier windows and the unmapped POS items that resemble it. Each cause is a small rule that returns
 * its confidence (0..1) and the numbers behind it; the ranking is by confidence. Rules, thresholds and
 * measured accuracy on a labelled set: docs/variance-causes.md.
 */

export const CAUSES = [
  'over_pouring',
  'theft_or_breakage',
  'unmapped_sales',
  'unrecorded_waste',
  'missing_delivery',
  'conversion_error',
  'count_error',
  'under_pouring',
] as const
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
  /** Mapped sale lines per day. */
  linesPerDay: number
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
    linesPerDay: facts.days > 0 ? facts.saleLines / facts.days : facts.saleLines,
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
/** Up to 2 mapped sale lines a day (14 a week) is "few sales": usage then is mostly not from sales. */
const FEW_LINES_PER_DAY = 2
/** Usage at 3× (or more) what sales explain is usage without sales. */
const UNEXPLAINED_RATIO = 3
/** A conversion error is visible only over this many windows with sales. */
const CONVERSION_MIN_WINDOWS = 3
/** Coefficient of variation of actual/expected across windows: at or under 0.5 % the ratio is fixed (a
 * factor), from 1.5 % on it wanders as pours and counts do. Counting to a tenth of a bottle alone puts
 * about 1 % of noise into a week's ratio. */
const CONVERSION_STEADY_CV = 0.005
const CONVERSION_WANDERING_CV = 0.015
/** How much a perfectly fixed ratio takes off the pouring causes' confidence. */
const POUR_STEADY_PENALTY = 0.25
/** A steady gap under 15 % is what a pour looks like; beyond 25 % it is what a wrong factor looks like. */
const CONVERSION_POUR_LIKE_GAP = 0.15
const CONVERSION_FACTOR_LIKE_GAP = 0.25
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

interface Facts {
  threshold: number
  current: WindowVariance
  previous: WindowVariance[]
  /** Previous windows then the current one. */
  all: WindowVariance[]
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
  const all = [...previous, current]
  const compared = { threshold: input.threshold, current, previous, unmapped: input.unmappedSimilar }
  // One literal with every field, none spread or added later: that made a slow dictionary object, which every rule reads.
  const facts: Facts = {
    threshold: input.threshold,
    current,
    previous,
    unmapped: input.unmappedSimilar,
    all,
    unmappedExplains: unmappedFit(compared).explains,
    countErrorMatch: countErrorCloseness(compared),
    partialCounts: all.some((w) => !Number.isInteger(w.facts.opening) || !Number.isInteger(w.facts.closing)),
    ratio: measureRatio(all, current),
  }
  const ranked: CauseEvidence[] = []
  for (const rule of RULES) {
    const found = rule(facts)
    if (found && found.confidence >= MIN_CONFIDENCE) ranked.push(found)
  }
  return ranked.sort((a, b) => b.confidence - a.confidence || CAUSES.indexOf(a.cause) - CAUSES.indexOf(b.cause))
}

/** Steady loss of 5–25 % over several windows. */
function overPouring(facts: Facts): CauseEvidence | undefined {
  const { current, all } = facts
  if (current.variance <= 0 || current.percentage > POUR_IMPLAUSIBLE_PERCENT) return undefined
  const over = all.filter((w) => w.percentage >= POUR_WINDOW_MIN_PERCENT && w.percentage <= POUR_IMPLAUSIBLE_PERCENT)
  const share = over.length / all.length
  // One window is no trend; the run counts in full from three windows over.
  const run = Math.min(1, (over.length - 1) / 2)
  let confidence = 0.2 + 0.6 * share * run
  if (current.percentage > POUR_PLAUSIBLE_PERCENT) confidence *= 0.6
  // Hands are never that steady: a fixed ratio is a factor (the conversion rule weighs it).
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

/** The same actual/expected ratio in every window: a wrong conversion factor or recipe. */
function conversionError(facts: Facts): CauseEvidence | undefined {
  const { ratios, average, cv, steadiness } = facts.ratio
  if (steadiness === 0) return undefined
  const gap = Math.abs(average - 1)
  const factorLike = gap >= CONVERSION_FACTOR_LIKE_GAP ? 1 : gap >= CONVERSION_POUR_LIKE_GAP ? 0.85 : 0.5
  // More windows make a fixed ratio less of a coincidence.
  const windows = 0.85 + 0.05 * Math.min(3, ratios.length - CONVERSION_MIN_WINDOWS)
  return found('conversion_error', steadiness * factorLike * windows, {
    variance_percentage: facts.current.percentage,
    mean_ratio: average,
    ratio_variation_percentage: cv * 100,
    windows: ratios.length,
  })
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
  const { current, previous, threshold } = facts
  if (current.variance <= 0) return undefined
  const usual = previous.length > 0 ? Math.max(mean(previous.map((w) => Math.abs(w.percentage))), threshold / 2) : threshold
  const spike = current.percentage / usual
  if (spike < SPIKE_FACTOR) return undefined
  const spikeScore = clamp01((spike - SPIKE_FACTOR) / (SPIKE_FULL_FACTOR - SPIKE_FACTOR))
  // A one-off needs a clean history; with none, it is half believed.
  const clean = previous.length > 0 ? previous.filter((w) => Math.abs(w.percentage) <= threshold).length / previous.length : 0.5
  const wholeUnits = facts.partialCounts && isWholeUnits(current.variance)
  let confidence = 0.3 + 0.25 * spikeScore + 0.25 * clean + (wholeUnits ? 0.1 : 0)
  // With few sales, usage without sales is as likely unrecorded waste; with none, more likely.
  if (current.facts.saleLines === 0) confidence *= 0.7
  else if (current.linesPerDay <= FEW_LINES_PER_DAY) confidence *= 0.85
  confidence *= 1 - facts.unmappedExplains
  confidence *= 1 - 0.6 * facts.countErrorMatch
  return found('theft_or_breakage', confidence, {
    variance_percentage: current.percentage,
    variance_units: current.variance,
    usual_variance_percentage: usual,
    clean_previous_windows: previous.filter((w) => Math.abs(w.percentage) <= threshold).length,
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
  const { current, previous, threshold } = facts
  if (current.variance <= 0 || !isUsageWithoutSales(current)) return undefined
  const recurring = previous.filter((w) => w.percentage > threshold && isUsageWithoutSales(w)).length
  // Nothing earlier to compare with: the recurrence is unknown, not absent.
  const recurrence = previous.length > 0 ? recurring / previous.length : 0.3
  const mostlyUnsold = current.ratio === null || current.ratio >= UNEXPLAINED_RATIO ? 0.1 : 0
  const confidence = (0.45 + mostlyUnsold + 0.35 * recurrence) * (1 - 0.5 * facts.unmappedExplains)
  return found('unrecorded_waste', confidence, {
    variance_percentage: current.percentage,
    variance_units: current.variance,
    sale_lines: current.facts.saleLines,
    sale_lines_per_day: current.linesPerDay,
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
  /** 0..1: 1 when the ratio is fixed like a factor, 0 when it wanders like pours and counts do. */
  steadiness: number
}

function measureRatio(all: WindowVariance[], current: WindowVariance): RatioSteadiness {
  const ratios = all.flatMap((w) => (w.ratio === null || w.facts.saleLines === 0 ? [] : [w.ratio]))
  const average = mean(ratios)
  if (ratios.length < CONVERSION_MIN_WINDOWS || current.ratio === null || average <= 0) return { ratios, average, cv: 0, steadiness: 0 }
  const cv = standardDeviation(ratios) / average
  const steadiness = clamp01((CONVERSION_WANDERING_CV - cv) / (CONVERSION_WANDERING_CV - CONVERSION_STEADY_CV))
  return { ratios, average, cv, steadiness }
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
  if (!before || before.expected === 0 && before.actual === 0) return 0
  if (Math.abs(before.percentage) <= threshold || Math.sign(before.variance) === Math.sign(current.variance)) return 0
  const sizes = [Math.abs(before.variance), Math.abs(current.variance)]
  const closeness = Math.min(...sizes) / Math.max(...sizes)
  return closeness >= COUNT_ERROR_MIN_CLOSENESS ? closeness : 0
}

function isUsageWithoutSales(w: WindowVariance): boolean {
  return w.actual > 0 && (w.expected === 0 || w.linesPerDay <= FEW_LINES_PER_DAY)
}

function isWholeUnits(units: number): boolean {
  const whole = Math.round(Math.abs(units))
  return whole >= 1 && Math.abs(Math.abs(units) - whole) <= WHOLE_UNIT_TOLERANCE
}

/** `evidence` is the rule's own fresh object: its numbers are rounded in place. */
function found(cause: Cause, confidence: number, evidence: Record<string, number>): CauseEvidence {
  for (const key in evidence) evidence[key] = round2(evidence[key] as number)
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
