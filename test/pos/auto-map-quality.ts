import { readFileSync } from 'node:fs'
import { NameMatcher } from '../../src/pos/auto-map/name-matcher.js'
import { projectPath } from '../../src/platform/paths.js'

/** The labelled POS-name set and what the matcher makes of it at a threshold. */
export interface LabelledSet {
  inventory: { name: string; unit: string; size_ml: number | null; category: string }[]
  pairs: { pos: string; inventory: string | null }[]
}

/** The tuning set by default; `auto-map-holdout.json` was written after tuning and never tuned on. */
export function loadLabelledSet(file = 'auto-map-pairs.json'): LabelledSet {
  return JSON.parse(readFileSync(projectPath('test', 'fixtures', file), 'utf8')) as LabelledSet
}

export interface Quality {
  precision: number
  recall: number
  truePositives: number
  falsePositives: { pos: string; predicted: string; expected: string | null; confidence: number }[]
  misses: { pos: string; expected: string; predicted: string | null; confidence: number }[]
}

export function measure(set: LabelledSet, threshold: number): Quality {
  const matcher = new NameMatcher(set.inventory.map((item, index) => ({ id: String(index), ...item })))
  let truePositives = 0
  const falsePositives: Quality['falsePositives'] = []
  const misses: Quality['misses'] = []
  for (const pair of set.pairs) {
    const match = matcher.bestMatch(pair.pos)
    const confidence = match?.confidence ?? 0
    const predicted = match && confidence >= threshold ? match.item.name : null
    if (predicted !== null && predicted === pair.inventory) truePositives++
    else if (predicted !== null) falsePositives.push({ pos: pair.pos, predicted, expected: pair.inventory, confidence })
    if (pair.inventory !== null && predicted !== pair.inventory) misses.push({ pos: pair.pos, expected: pair.inventory, predicted: match?.item.name ?? null, confidence })
  }
  const positives = set.pairs.filter((pair) => pair.inventory !== null).length
  return {
    precision: truePositives / (truePositives + falsePositives.length),
    recall: truePositives / positives,
    truePositives,
    falsePositives,
    misses,
  }
}
