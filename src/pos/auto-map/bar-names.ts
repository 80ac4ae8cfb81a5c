/**
 * How bar POS names and stock names are written: sizes (1.5oz, 750ml, 1L, pint), serving words (btl,
 * draft, shot, glass), abbreviations, and the words that say what a drink is rather than which one it is.
 * `parseBarName` turns a name into the parts the matcher compares.
 */

export type Serving = 'pour' | 'double' | 'glass' | 'bottle' | 'can' | 'draft'

export interface ParsedName {
  /** Identifying tokens, normalised and expanded. */
  tokens: string[]
  /** A volume written in the name, in ml. */
  sizeMl: number | undefined
  serving: Serving | undefined
}

const ML_PER_UNIT: Record<string, number> = {
  oz: 29.5735,
  ounce: 29.5735,
  ounces: 29.5735,
  floz: 29.5735,
  ml: 1,
  cl: 10,
  l: 1000,
  lt: 1000,
  ltr: 1000,
  liter: 1000,
  litre: 1000,
}

const SERVING_WORDS: Record<string, Serving> = {
  btl: 'bottle',
  bttl: 'bottle',
  bot: 'bottle',
  bottle: 'bottle',
  bottles: 'bottle',
  can: 'can',
  cans: 'can',
  tall: 'can',
  tallboy: 'can',
  draft: 'draft',
  draught: 'draft',
  drft: 'draft',
  dft: 'draft',
  tap: 'draft',
  pint: 'draft',
  pt: 'draft',
  glass: 'glass',
  gl: 'glass',
  gls: 'glass',
  glas: 'glass',
  shot: 'pour',
  pour: 'pour',
  neat: 'pour',
  rocks: 'pour',
  single: 'pour',
  sgl: 'pour',
  dbl: 'double',
  double: 'double',
}

/** Words that carry no identity in either kind of name. */
const NOISE = new Set(['the', 'a', 'of', 'de', 'and', 'w', 'with', 'yr', 'year', 'years', 'old', 'yo', 'pk', 'pc', 'pcs', 'ea', 'each', 'no'])

/** Which serving word wins when a name has several ("Guinness Draught Can" is a can). */
const SERVING_PRECEDENCE: Serving[] = ['bottle', 'can', 'draft', 'glass', 'double', 'pour']

/** Common POS abbreviations, token → written-out tokens. */
const ABBREVIATIONS: Record<string, string[]> = {
  blk: ['black'],
  lbl: ['label'],
  rsv: ['reserve'],
  res: ['reserve'],
  xtra: ['extra'],
  ex: ['extra'],
  lt: ['light'],
  lite: ['light'],
  ult: ['ultra'],
  org: ['original'],
  orig: ['original'],
  vdk: ['vodka'],
  vod: ['vodka'],
  vka: ['vodka'],
  tq: ['tequila'],
  teq: ['tequila'],
  tqla: ['tequila'],
  whsky: ['whiskey'],
  whisky: ['whiskey'],
  whsk: ['whiskey'],
  wsky: ['whiskey'],
  bbn: ['bourbon'],
  brbn: ['bourbon'],
  rep: ['reposado'],
  repo: ['reposado'],
  anj: ['anejo'],
  slv: ['silver'],
  slvr: ['silver'],
  blco: ['blanco'],
  chard: ['chardonnay'],
  cab: ['cabernet'],
  sauv: ['sauvignon'],
  sav: ['sauvignon'],
  pg: ['pinot', 'grigio'],
  pn: ['pinot', 'noir'],
  sb: ['sauvignon', 'blanc'],
  zin: ['zinfandel'],
  pros: ['prosecco'],
  one: ['1'],
  two: ['2'],
  spkl: ['sparkling'],
  spk: ['sparkling'],
  hse: ['house'],
  wl: ['well'],
  bev: [],
  mrg: ['margarita'],
  marg: ['margarita'],
  jd: ['jack', 'daniels'],
  jw: ['johnnie', 'walker'],
  cr: ['crown', 'royal'],
  gg: ['grey', 'goose'],
  mich: ['michelob'],
  hein: ['heineken'],
  heini: ['heineken'],
  guin: ['guinness'],
  sam: ['samuel'],
}

/**
 * Words that say what kind of drink it is; they weigh little (the brand says which one) but two names
 * naming different kinds do not match.
 */
export const KIND_GROUPS: Record<string, string> = {
  vodka: 'vodka',
  gin: 'gin',
  rum: 'rum',
  tequila: 'tequila',
  mezcal: 'mezcal',
  whiskey: 'whiskey',
  bourbon: 'whiskey',
  scotch: 'whiskey',
  rye: 'whiskey',
  brandy: 'brandy',
  cognac: 'brandy',
  liqueur: 'liqueur',
  schnapps: 'liqueur',
  beer: 'beer',
  lager: 'beer',
  ale: 'beer',
  pilsner: 'beer',
  stout: 'beer',
  seltzer: 'seltzer',
  cider: 'cider',
  wine: 'wine',
}

/** Descriptive words, and the drinks a pour goes into (a Grey Goose martini pour is Grey Goose): they weigh little. */
export const GENERIC_WORDS = new Set([
  ...Object.keys(KIND_GROUPS),
  'irish',
  'kentucky',
  'tennessee',
  'canadian',
  'straight',
  'blended',
  'single',
  'malt',
  'london',
  'dry',
  'imported',
  'domestic',
  'premium',
  'hard',
  'craft',
  'non',
  'alcoholic',
  'cocktail',
  'spirits',
  'martini',
  'spritz',
  'bomb',
  'fashioned',
  'sour',
  'highball',
])

/**
 * Words that name one variant of a brand (a flavour, an expression, light or zero): an item carrying one
 * the POS name lacks is another product (Absolut is not Absolut Citron).
 */
export const VARIANT_WORDS = new Set([
  'citron',
  'mandrin',
  'vanilla',
  'peach',
  'honey',
  'fire',
  'mango',
  'cherry',
  'lime',
  'watermelon',
  'grapefruit',
  'pineapple',
  'light',
  'ultra',
  'zero',
  'silver',
  'gold',
  'blue',
  'red',
  'black',
  'barrel',
  'sugarfree',
  'tropical',
  'amber',
  'hazy',
])

function stripAccents(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
}

export function parseBarName(raw: string): ParsedName {
  let text = stripAccents(raw.toLowerCase())
    .replace(/['’`´]/g, '')
    .replace(/&/g, ' and ')
  // "12yr", "10pc": a number run into a word.
  text = text.replace(/\b(\d+)(yr|yo|pc|pcs|pk)\b/g, '$1 $2')
  let sizeMl: number | undefined
  text = text.replace(/(\d+(?:\.\d+)?)\s*(fl\.?\s*oz|oz|ounces?|ml|cl|ltr|lt|liters?|litres?|l)\b\.?/g, (_match, amount: string, unit: string) => {
    sizeMl ??= Number(amount) * (ML_PER_UNIT[unit.replace(/[\s.]/g, '').replace(/s$/, '')] ?? ML_PER_UNIT.l ?? 1000)
    return ' '
  })
  // Keg fractions (1/2, 1/6) and counts in brackets say nothing about which product it is.
  text = text.replace(/\b\d+\/\d+\b/g, ' ').replace(/\(\s*\d+\s*\)/g, ' ')
  const servings: Serving[] = []
  const tokens: string[] = []
  for (const word of text.split(/[^a-z0-9]+/).filter(Boolean)) {
    const servingWord = SERVING_WORDS[word]
    if (servingWord) {
      servings.push(servingWord)
      if (word === 'pint' || word === 'pt') sizeMl ??= 473.176
      continue
    }
    // Single letters ("G&T", "w/") identify nothing.
    if (NOISE.has(word) || (word.length === 1 && !/\d/.test(word))) continue
    tokens.push(...(ABBREVIATIONS[word] ?? [word]))
  }
  const serving = SERVING_PRECEDENCE.find((candidate) => servings.includes(candidate))
  return { tokens, sizeMl, serving }
}
