import { distance } from 'fastest-levenshtein'
import { GENERIC_WORDS, KIND_GROUPS, type ParsedName, parseBarName, VARIANT_WORDS } from './bar-names.js'

/**
 * Scores how likely a POS name and a stock item name are the same product, from 0 to 1. The POS name's
 * identifying words must be found in the item's name (fuzzily: typos, prefixes like chard/chardonnay,
 * initials like KJ, run-together brands like greygoose); the item's extra words count against it only
 * when they tell it apart from another item the POS name also fits (Jameson vs Jameson Black Barrel).
 * Different kinds of drink (vodka vs gin), a draft sold against a bottled item, or a bottle size that
 * differs lower the score. Scoring details and measured precision/recall: docs/pos.md.
 */

export interface CatalogItem {
  id: string
  name: string
  unit: string
  size_ml: number | null
}

export interface Match {
  item: CatalogItem
  confidence: number
}

interface Candidate {
  item: CatalogItem
  parsed: ParsedName
}

interface Alignment {
  candidate: Candidate
  posCoverage: number
  /** Item tokens the POS name did not account for. */
  unmatched: string[]
}

const POS_WEIGHT = 0.75
const GENERIC_WEIGHT = 0.35
/** Weight left to an unmatched item word that does not tell the item apart from the others that fit. */
const NON_DISTINGUISHING = 0.2
/** A candidate counts as fitting the POS name (for deciding which item words distinguish) from here. */
const FITS = 0.5
const KIND_CONFLICT = 0.5
const SERVING_CONFLICT = 0.75
const SIZE_CONFLICT = 0.7
const OTHER_VARIANT = 0.8
const BRAND_MISSING = 0.75
/** Words that make a POS name name a house product whatever the brand in the item's name. */
const HOUSE_WORDS = new Set(['well', 'house'])

function tokenSimilarity(a: string, b: string): number {
  if (a === b) return 1
  const [short, long] = a.length <= b.length ? [a, b] : [b, a]
  if (short.length >= 3 && long.startsWith(short) && !/^\d+$/.test(short)) return 0.9
  if (short.length >= 4) {
    const ratio = 1 - distance(a, b) / long.length
    if (ratio >= 0.8) return ratio
  }
  return 0
}

export class NameMatcher {
  private readonly candidates: Candidate[]
  private readonly documentFrequency = new Map<string, number>()

  constructor(items: readonly CatalogItem[]) {
    this.candidates = items.map((item) => ({ item, parsed: parseBarName(item.name) }))
    for (const candidate of this.candidates) {
      for (const token of new Set(candidate.parsed.tokens)) this.documentFrequency.set(token, (this.documentFrequency.get(token) ?? 0) + 1)
    }
  }

  /** Rare words identify a product more than common ones; kind words barely. */
  private weight(token: string): number {
    if (GENERIC_WORDS.has(token)) return GENERIC_WEIGHT
    const df = this.documentFrequency.get(token) ?? 0
    const idf = Math.log((this.candidates.length + 1) / (df + 1))
    return 1 + Math.min(1, idf / 4)
  }

  /** The best item for a POS name with its confidence, or undefined with no candidate at all. */
  bestMatch(posName: string): Match | undefined {
    const pos = parseBarName(posName)
    if (pos.tokens.length === 0) return undefined
    const alignments = this.candidates.map((candidate) => this.align(pos, candidate))
    const fitting = alignments.filter((alignment) => alignment.posCoverage >= FITS)
    let best: Match | undefined
    for (const alignment of alignments) {
      if (alignment.posCoverage === 0) continue
      const confidence = this.confidence(pos, alignment, fitting)
      if (!best || confidence > best.confidence) best = { item: alignment.candidate.item, confidence }
    }
    return best
  }

  private align(pos: ParsedName, candidate: Candidate): Alignment {
    const itemTokens = candidate.parsed.tokens
    const used = new Set<number>()
    let matched = 0
    let total = 0
    for (const token of pos.tokens) {
      const weight = this.weight(token)
      total += weight
      const hit = this.bestHit(token, itemTokens)
      if (hit) {
        matched += weight * hit.similarity
        for (const index of hit.indexes) used.add(index)
      }
    }
    return {
      candidate,
      posCoverage: total === 0 ? 0 : matched / total,
      unmatched: itemTokens.filter((_token, index) => !used.has(index)),
    }
  }

  /** The item token(s) a POS token stands for: one word, two run together, or their initials. */
  private bestHit(token: string, itemTokens: string[]): { similarity: number; indexes: number[] } | undefined {
    let best: { similarity: number; indexes: number[] } | undefined
    itemTokens.forEach((itemToken, index) => {
      const similarity = tokenSimilarity(token, itemToken)
      if (similarity > (best?.similarity ?? 0)) best = { similarity, indexes: [index] }
      const next = itemTokens[index + 1]
      if (next === undefined || (best?.similarity ?? 0) >= 1) return
      if (token === itemToken + next) best = { similarity: 1, indexes: [index, index + 1] }
      else if (token.length === 2 && token === (itemToken[0] ?? '') + (next[0] ?? '') && (best?.similarity ?? 0) < 0.9) {
        best = { similarity: 0.9, indexes: [index, index + 1] }
      }
    })
    return best
  }

  private confidence(pos: ParsedName, alignment: Alignment, fitting: Alignment[]): number {
    const { candidate } = alignment
    const others = fitting.filter((other) => other !== alignment)
    let missing = 0
    let itemTotal = 0
    for (const token of candidate.parsed.tokens) itemTotal += this.weight(token)
    for (const token of alignment.unmatched) {
      const distinguishing = VARIANT_WORDS.has(token) || others.some((other) => !other.candidate.parsed.tokens.includes(token))
      missing += this.weight(token) * (distinguishing ? 1 : NON_DISTINGUISHING)
    }
    const itemCoverage = itemTotal === 0 ? 0 : Math.max(0, 1 - missing / itemTotal)
    let score = POS_WEIGHT * alignment.posCoverage + (1 - POS_WEIGHT) * itemCoverage
    if (kindsConflict(pos.tokens, candidate.parsed.tokens)) score *= KIND_CONFLICT
    if (servingConflicts(pos, candidate.item)) score *= SERVING_CONFLICT
    if (sizeConflicts(pos, candidate)) score *= SIZE_CONFLICT
    if (alignment.unmatched.some((token) => VARIANT_WORDS.has(token))) score *= OTHER_VARIANT
    if (brandMissing(pos, alignment)) score *= BRAND_MISSING
    return Math.round(score * 10_000) / 10_000
  }
}

/** The item's first word (where brands stand) unmatched, unless the POS name names a well or house product. */
function brandMissing(pos: ParsedName, alignment: Alignment): boolean {
  const first = alignment.candidate.parsed.tokens[0]
  if (first === undefined || !alignment.unmatched.includes(first)) return false
  return !pos.tokens.some((token) => HOUSE_WORDS.has(token) && alignment.candidate.parsed.tokens.includes(token))
}

function kindsOf(tokens: string[]): Set<string> {
  return new Set(tokens.map((token) => KIND_GROUPS[token]).filter((kind): kind is string => kind !== undefined))
}

function kindsConflict(posTokens: string[], itemTokens: string[]): boolean {
  const posKinds = kindsOf(posTokens)
  const itemKinds = kindsOf(itemTokens)
  if (posKinds.size === 0 || itemKinds.size === 0) return false
  return ![...posKinds].some((kind) => itemKinds.has(kind))
}

/** A draft poured from a bottle or can item, or a bottle or can sold against a keg. */
function servingConflicts(pos: ParsedName, item: CatalogItem): boolean {
  if (pos.serving === 'draft') return item.unit === 'bottle' || item.unit === 'can'
  if (pos.serving === 'bottle' || pos.serving === 'can') return item.unit === 'keg'
  return false
}

/** A whole container sold (bottle, can, or a size of 200 ml or more) whose size differs from the item's. */
function sizeConflicts(pos: ParsedName, candidate: Candidate): boolean {
  const itemSize = candidate.item.size_ml ?? candidate.parsed.sizeMl
  if (pos.sizeMl === undefined || itemSize === undefined || pos.serving === 'draft' || pos.serving === 'glass') return false
  if (pos.sizeMl < 200 && pos.serving !== 'bottle' && pos.serving !== 'can') return false
  return Math.abs(pos.sizeMl - itemSize) / itemSize > 0.05
}
