import { hash } from 'node:crypto'
import { decimal } from '../../platform/decimal.js'
import { BoundedCache } from './bounded-cache.js'
import { DAY_MS } from '../../platform/zoned-time.js'

/**
 * The bar every simulator serves: one deterministic menu, staff and sales history per seed, which each
 * vendor simulator renders in its own API's shapes. Sales follow a weekly rhythm (Friday and Saturday
 * busiest) and include voids and refunds, as a real bar's do.
 */

export type MenuKind = 'pour' | 'cocktail' | 'draft' | 'bottled_beer' | 'wine_glass' | 'wine_bottle' | 'food'

export interface MenuEntry {
  /** Stable key; vendor simulators derive their own ids from it. */
  key: string
  name: string
  category: string
  kind: MenuKind
  /** Decimal string, dollars. */
  price: string
  sku: string
}

export interface StaffEntry {
  key: string
  firstName: string
  lastName: string
  role: 'bartender' | 'server' | 'manager'
}

/** A modifier rung on a line: an item of MODIFIERS, one per unit of its parent line. */
export interface SimModifier {
  /** Unique within the seed's whole history: the parent's lineId + ':m' + n. */
  lineId: string
  itemKey: string
  quantity: number
  /** Decimal string, dollars per unit. */
  unitPrice: string
}

export interface SimLine {
  /** Unique within the seed's whole history. */
  lineId: string
  itemKey: string
  quantity: number
  /** Decimal string, dollars per unit. */
  unitPrice: string
  /** Voided before the check closed: never sold. */
  voided: boolean
  /** Refunded (returned) after the check closed, at `refundedAt`; sold until then. */
  refunded: boolean
  refundedAt: Date | null
  /** Voided by a manager after the check closed, at this time (vendors that allow it); sold until then. */
  voidedAfterCloseAt: Date | null
  /** Rung when the check was reopened: sold only from the check's `reclosedAt`. */
  addedOnReopen: boolean
  /** Modifiers that use stock; they are refunded or voided with their line. */
  modifiers: SimModifier[]
}

export interface SimCheck {
  checkId: string
  openedAt: Date
  closedAt: Date
  /** The check was reopened after closing and closed again at this time (lines `addedOnReopen` added then). */
  reclosedAt: Date | null
  staffKey: string
  lines: SimLine[]
  /** Decimal string, dollars (at first close). */
  tip: string
}

export const MENU: readonly MenuEntry[] = [
  { key: 'titos-pour', name: "Tito's Vodka 1.5oz", category: 'Spirits', kind: 'pour', price: '8.00', sku: 'SP-TITO-15' },
  { key: 'well-vodka-pour', name: 'Well Vodka 1.5oz', category: 'Spirits', kind: 'pour', price: '6.00', sku: 'SP-WVOD-15' },
  { key: 'jameson-pour', name: 'Jameson Irish Whiskey 1.5oz', category: 'Spirits', kind: 'pour', price: '9.00', sku: 'SP-JAME-15' },
  { key: 'makers-pour', name: "Maker's Mark Bourbon 1.5oz", category: 'Spirits', kind: 'pour', price: '10.00', sku: 'SP-MAKR-15' },
  { key: 'patron-pour', name: 'Patron Silver Tequila 1.5oz', category: 'Spirits', kind: 'pour', price: '12.00', sku: 'SP-PATR-15' },
  { key: 'hendricks-pour', name: "Hendrick's Gin 1.5oz", category: 'Spirits', kind: 'pour', price: '11.00', sku: 'SP-HEND-15' },
  { key: 'well-gin-pour', name: 'Well Gin 1.5oz', category: 'Spirits', kind: 'pour', price: '6.00', sku: 'SP-WGIN-15' },
  { key: 'bacardi-pour', name: 'Bacardi Superior Rum 1.5oz', category: 'Spirits', kind: 'pour', price: '7.00', sku: 'SP-BACA-15' },
  { key: 'johnnie-black-pour', name: 'Johnnie Walker Black Label 2oz', category: 'Spirits', kind: 'pour', price: '14.00', sku: 'SP-JWBL-20' },
  { key: 'fireball-shot', name: 'Fireball Shot', category: 'Spirits', kind: 'pour', price: '6.00', sku: 'SP-FIRE-SH' },
  { key: 'margarita', name: 'House Margarita', category: 'Cocktails', kind: 'cocktail', price: '12.00', sku: 'CK-MARG' },
  { key: 'old-fashioned', name: 'Old Fashioned', category: 'Cocktails', kind: 'cocktail', price: '13.00', sku: 'CK-OLDF' },
  { key: 'moscow-mule', name: 'Moscow Mule', category: 'Cocktails', kind: 'cocktail', price: '11.00', sku: 'CK-MULE' },
  { key: 'negroni', name: 'Negroni', category: 'Cocktails', kind: 'cocktail', price: '13.00', sku: 'CK-NEGR' },
  { key: 'espresso-martini', name: 'Espresso Martini', category: 'Cocktails', kind: 'cocktail', price: '14.00', sku: 'CK-ESPM' },
  { key: 'mojito', name: 'Mojito', category: 'Cocktails', kind: 'cocktail', price: '12.00', sku: 'CK-MOJI' },
  { key: 'ipa-draft', name: 'Lagunitas IPA Draft 16oz', category: 'Draft Beer', kind: 'draft', price: '8.00', sku: 'DR-LAGI-16' },
  { key: 'stella-draft', name: 'Stella Artois Draft Pint', category: 'Draft Beer', kind: 'draft', price: '7.50', sku: 'DR-STEL-16' },
  { key: 'guinness-draft', name: 'Guinness Draught 20oz', category: 'Draft Beer', kind: 'draft', price: '9.00', sku: 'DR-GUIN-20' },
  { key: 'local-lager-draft', name: 'Local Lager Draft 16oz', category: 'Draft Beer', kind: 'draft', price: '6.50', sku: 'DR-LLAG-16' },
  { key: 'bud-light-btl', name: 'Bud Light Btl', category: 'Bottled Beer', kind: 'bottled_beer', price: '5.00', sku: 'BT-BUDL-12' },
  { key: 'corona-btl', name: 'Corona Extra 12oz Bottle', category: 'Bottled Beer', kind: 'bottled_beer', price: '6.00', sku: 'BT-CORO-12' },
  { key: 'heineken-btl', name: 'Heineken Btl', category: 'Bottled Beer', kind: 'bottled_beer', price: '6.00', sku: 'BT-HEIN-12' },
  { key: 'white-claw-can', name: 'White Claw Black Cherry Can', category: 'Bottled Beer', kind: 'bottled_beer', price: '6.00', sku: 'BT-WCLW-12' },
  { key: 'cab-glass', name: 'House Cabernet Sauvignon Glass 6oz', category: 'Wine', kind: 'wine_glass', price: '11.00', sku: 'WN-CABG-6' },
  { key: 'chard-glass', name: 'Kendall-Jackson Chardonnay Gl', category: 'Wine', kind: 'wine_glass', price: '12.00', sku: 'WN-KJCH-6' },
  { key: 'prosecco-glass', name: 'La Marca Prosecco Glass', category: 'Wine', kind: 'wine_glass', price: '10.00', sku: 'WN-LAMP-6' },
  { key: 'pinot-bottle', name: 'Meiomi Pinot Noir Bottle 750ml', category: 'Wine', kind: 'wine_bottle', price: '48.00', sku: 'WN-MEIO-750' },
  { key: 'sauv-blanc-bottle', name: 'Kim Crawford Sauvignon Blanc Btl', category: 'Wine', kind: 'wine_bottle', price: '44.00', sku: 'WN-KIMC-750' },
  { key: 'wings', name: 'Buffalo Wings (10)', category: 'Food', kind: 'food', price: '14.00', sku: 'FD-WING-10' },
  { key: 'fries', name: 'Truffle Fries', category: 'Food', kind: 'food', price: '8.00', sku: 'FD-TRFR' },
]

/**
 * Modifiers that use stock, sold on a parent line of the kinds named: an upgrade or extra pour, a mixer.
 * Each is a POS item of its own (vendors list them as modifier options), mapped like any menu item.
 */
export const MODIFIERS: readonly (MenuEntry & { parentKinds: readonly MenuKind[] })[] = [
  { key: 'mod-extra-shot', name: "Extra Shot Tito's 1oz", category: 'Modifiers', kind: 'pour', price: '4.00', sku: 'MD-XSHT-10', parentKinds: ['pour', 'cocktail'] },
  { key: 'mod-grey-goose', name: 'Grey Goose Upgrade 1.5oz', category: 'Modifiers', kind: 'pour', price: '3.00', sku: 'MD-GGUP-15', parentKinds: ['cocktail'] },
  { key: 'mod-red-bull', name: 'Add Red Bull Can', category: 'Modifiers', kind: 'bottled_beer', price: '3.50', sku: 'MD-RBUL-08', parentKinds: ['pour'] },
]

export const STAFF: readonly StaffEntry[] = [
  { key: 'maria', firstName: 'Maria', lastName: 'Lopez', role: 'bartender' },
  { key: 'james', firstName: 'James', lastName: 'Okafor', role: 'bartender' },
  { key: 'sofia', firstName: 'Sofia', lastName: 'Rossi', role: 'bartender' },
  { key: 'tom', firstName: 'Tom', lastName: 'Becker', role: 'server' },
  { key: 'aisha', firstName: 'Aisha', lastName: 'Khan', role: 'server' },
  { key: 'dave', firstName: 'Dave', lastName: 'Miller', role: 'manager' },
]

/** Relative weight of each menu kind in an order. */
const KIND_WEIGHT: Record<MenuKind, number> = {
  pour: 30,
  cocktail: 25,
  draft: 22,
  bottled_beer: 12,
  wine_glass: 8,
  wine_bottle: 1.5,
  food: 6,
}

/** Checks on an average day, and how each weekday (0 = Sunday) scales it. */
const BASE_CHECKS_PER_DAY = 120
const WEEKDAY_FACTOR = [1.0, 0.6, 0.7, 0.8, 1.2, 1.9, 2.1]
const VOID_RATE = 0.03
const REFUND_RATE = 0.01
/** Of pour and cocktail lines, the share that carries a modifier. */
const MODIFIER_RATE = 0.15
const VOID_AFTER_CLOSE_RATE = 0.01
const REOPEN_RATE = 0.02
const HOUR_MS = 3_600_000

/** mulberry32: a small, fast, well-distributed PRNG; same seed, same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** A stable UUID-shaped id for `key` under `seed` (vendors whose ids are GUIDs). */
export function stableUuid(seed: number, key: string): string {
  const hex = hash('sha256', `${seed}:${key}`, 'hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/** A stable alphanumeric id of `length` characters for `key` under `seed`. */
export function stableId(seed: number, key: string, length = 13): string {
  // One-shot hash(): the same digest as createHash without a Hash object per id (ids are made per line).
  return hash('sha256', `${seed}:${key}`, 'base64url').slice(0, length).replace(/[-_]/g, 'X').toUpperCase()
}

/** Each menu entry's chance in an order: its kind's weight shared among the entries of that kind. */
const ENTRY_WEIGHTS = MENU.map((entry) => KIND_WEIGHT[entry.kind] / MENU.filter((other) => other.kind === entry.kind).length)
const TOTAL_ENTRY_WEIGHT = ENTRY_WEIGHTS.reduce((sum, weight) => sum + weight, 0)

function pickWeighted(random: () => number): MenuEntry {
  let roll = random() * TOTAL_ENTRY_WEIGHT
  for (let index = 0; index < MENU.length; index++) {
    roll -= ENTRY_WEIGHTS[index] as number
    if (roll <= 0) return MENU[index] as MenuEntry
  }
  return MENU[MENU.length - 1] as MenuEntry
}

/** Trading hours: 16:00 to 02:00 UTC of the next morning. */
function closeTime(dayStart: number, random: () => number): Date {
  const minutes = 16 * 60 + Math.floor(random() * 10 * 60)
  return new Date(dayStart + minutes * 60_000)
}

function centsToDollars(cents: number): string {
  return (cents / 100).toFixed(2)
}

/** Prices and tips repeat a lot: each distinct amount is converted once. */
const centsOfAmount = new Map<string, number>()

/** A decimal dollar string of the bar's (a price or a tip) as integer cents, as vendors' APIs send money. */
export function dollarsToCents(dollars: string): number {
  let amount = centsOfAmount.get(dollars)
  if (amount === undefined) {
    amount = decimal(dollars).times(100).toNumber()
    centsOfAmount.set(dollars, amount)
  }
  return amount
}

/**
 * Days already generated, bounded by their checks (about 100 MB): every page request of a simulator
 * reads its window again, and generating a busy day costs far more than keeping it.
 */
const generatedDays = new BoundedCache<string, readonly SimCheck[]>(250_000, (checks) => checks.length)

/**
 * The checks of one business day (UTC date of dayStart), deterministic for (seed, day, volume). The
 * answer is shared between callers: read it, never change it.
 */
export function checksForDay(seed: number, dayStart: number, volume = 1): readonly SimCheck[] {
  return generatedDays.get(`${seed}:${dayStart}:${volume}`, () => generateDay(seed, dayStart, volume))
}

function generateDay(seed: number, dayStart: number, volume: number): SimCheck[] {
  const dayIndex = Math.floor(dayStart / DAY_MS)
  const random = seededRandom(seed * 100_003 + dayIndex)
  // Modifiers, late corrections and reopened checks draw from a stream of their own, so the checks,
  // lines and amounts of the original stream stay what they were.
  const later = seededRandom(seed * 100_019 + dayIndex + 7_777_777)
  const weekday = new Date(dayStart).getUTCDay()
  const count = Math.round(BASE_CHECKS_PER_DAY * (WEEKDAY_FACTOR[weekday] ?? 1) * volume * (0.85 + random() * 0.3))
  const checks: SimCheck[] = []
  for (let index = 0; index < count; index++) {
    const closedAt = closeTime(dayStart, random)
    const openedAt = new Date(closedAt.getTime() - (10 + Math.floor(random() * 80)) * 60_000)
    const staff = STAFF[Math.floor(random() * (STAFF.length - 1))] as StaffEntry
    const lineCount = 1 + Math.floor(random() * 4)
    const lines: SimLine[] = []
    let totalCents = 0
    for (let lineIndex = 0; lineIndex < lineCount; lineIndex++) {
      const entry = pickWeighted(random)
      const quantity = entry.kind === 'wine_bottle' || entry.kind === 'food' ? 1 : 1 + Math.floor(random() * random() * 3)
      const roll = random()
      const voided = roll < VOID_RATE
      const refunded = !voided && roll < VOID_RATE + REFUND_RATE
      const lineId = `${dayIndex}-${index}-${lineIndex}`
      const { voidedAfterCloseAt, modifiers } = laterFacts(later, lineId, entry, quantity, closedAt, !voided && !refunded)
      const refundedAt = refunded ? new Date(closedAt.getTime() + (1 + Math.floor(later() * 47)) * HOUR_MS) : null
      // One literal, its fields in SimLine's order as in lineAddedOnReopen: lines spread together from
      // other objects each got a hidden class of their own in V8, and every read of them went slow.
      lines.push({ lineId, itemKey: entry.key, quantity, unitPrice: entry.price, voided, refunded, refundedAt, voidedAfterCloseAt, addedOnReopen: false, modifiers })
      if (!voided) totalCents += Math.round(Number(entry.price) * 100) * quantity
    }
    const tipCents = Math.round(totalCents * (0.12 + random() * 0.1))
    const reclosedAt = later() < REOPEN_RATE ? new Date(closedAt.getTime() + (10 + Math.floor(later() * 50)) * 60_000) : null
    if (reclosedAt) lines.push(lineAddedOnReopen(later, `${dayIndex}-${index}-${lineCount}`))
    checks.push({ checkId: `${dayIndex}-${index}`, openedAt, closedAt, reclosedAt, staffKey: staff.key, lines, tip: centsToDollars(tipCents) })
  }
  return checks.sort((a, b) => a.closedAt.getTime() - b.closedAt.getTime())
}

/** A line's modifiers and void after close, drawn from the `later` stream. */
function laterFacts(later: () => number, lineId: string, entry: MenuEntry, quantity: number, closedAt: Date, mayVoidAfterClose: boolean) {
  const options = MODIFIERS.filter((modifier) => modifier.parentKinds.includes(entry.kind))
  const withModifier = options.length > 0 && later() < MODIFIER_RATE
  const modifier = options[Math.floor(later() * options.length)]
  const modifiers: SimModifier[] = withModifier && modifier ? [{ lineId: `${lineId}:m0`, itemKey: modifier.key, quantity, unitPrice: modifier.price }] : []
  const voidedAfterClose = mayVoidAfterClose && later() < VOID_AFTER_CLOSE_RATE
  const voidedAfterCloseAt = voidedAfterClose ? new Date(closedAt.getTime() + (5 + Math.floor(later() * 85)) * 60_000) : null
  return { voidedAfterCloseAt, modifiers }
}

/** The round rung when a check was reopened: one bottled beer. */
function lineAddedOnReopen(later: () => number, lineId: string): SimLine {
  const beers = MENU.filter((entry) => entry.kind === 'bottled_beer')
  const entry = beers[Math.floor(later() * beers.length)] as MenuEntry
  return {
    lineId,
    itemKey: entry.key,
    quantity: 1,
    unitPrice: entry.price,
    voided: false,
    refunded: false,
    refundedAt: null,
    voidedAfterCloseAt: null,
    addedOnReopen: true,
    modifiers: [],
  }
}

/** Whether a line of `check` counts as sold, seen at `asOf`: rung, not taken back by then, and closed by then. */
export function soldAsOf(check: SimCheck, line: SimLine, asOf: Date): boolean {
  if (line.voided) return false
  if (line.addedOnReopen && (check.reclosedAt === null || check.reclosedAt > asOf)) return false
  if (line.refundedAt && line.refundedAt <= asOf) return false
  if (line.voidedAfterCloseAt && line.voidedAfterCloseAt <= asOf) return false
  return true
}

/**
 * The simulator's ground truth: units consumed per menu or modifier key by the checks first closed in
 * [start, end), as a POS reports them at `asOf` (refunds and voids after close made by then taken back,
 * lines added on reopening counted once the check closed again).
 */
export function consumedUnits(seed: number, start: Date, end: Date, options: { now: Date; historyDays: number; volume?: number; asOf: Date }): Map<string, number> {
  const units = new Map<string, number>()
  const add = (key: string, quantity: number) => units.set(key, (units.get(key) ?? 0) + quantity)
  for (const check of checksClosedBetween(seed, start, end, options)) {
    for (const line of check.lines) {
      if (!soldAsOf(check, line, options.asOf)) continue
      add(line.itemKey, line.quantity)
      for (const modifier of line.modifiers) add(modifier.itemKey, modifier.quantity)
    }
  }
  return units
}

/** The part of [start, end) the simulator's history covers, in epoch ms; `from >= to` when none. */
export function historyRange(start: Date, end: Date, options: { now: Date; historyDays: number }): { from: number; to: number } {
  const earliest = options.now.getTime() - options.historyDays * DAY_MS
  return { from: Math.max(start.getTime(), earliest), to: Math.min(end.getTime(), options.now.getTime()) }
}

/** Every check closed in [start, end), oldest first, limited to the simulator's history. */
export function checksClosedBetween(seed: number, start: Date, end: Date, options: { now: Date; historyDays: number; volume?: number }): SimCheck[] {
  const { from, to } = historyRange(start, end, options)
  if (from >= to) return []
  const checks: SimCheck[] = []
  // A check closes up to 10 hours after its day starts, so the day before `from` can reach into it.
  for (let day = Math.floor(from / DAY_MS) * DAY_MS - DAY_MS; day < to; day += DAY_MS) {
    for (const check of checksForDay(seed, day, options.volume)) {
      const closed = check.closedAt.getTime()
      if (closed >= from && closed < to) checks.push(check)
    }
  }
  return checks
}

const MENU_BY_KEY = new Map([...MENU, ...MODIFIERS].map((entry) => [entry.key, entry]))

/** A menu item or modifier by key. */
export function menuEntry(key: string): MenuEntry {
  const entry = MENU_BY_KEY.get(key)
  if (!entry) throw new Error(`no menu entry ${key}`)
  return entry
}
