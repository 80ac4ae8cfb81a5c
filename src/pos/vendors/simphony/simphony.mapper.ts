import type Big from 'big.js'
import { PosAdapterError, type PosProduct, type PosSaleLine, type PosStaffMember, type SalesWindow } from '../adapter.js'
import { ZERO } from '../../../platform/decimal.js'
import { readVendorDecimal, splitCheckTip, unitPriceOf } from '../sale-amounts.js'
import {
  parseSimphonyUtc,
  SIMPHONY_VENDOR,
  type SimphonyDetailLine,
  type SimphonyEmployeeDimension,
  type SimphonyGuestCheck,
  type SimphonyMenuItemDimension,
  type SimphonyMenuItemPrice,
} from './simphony.client.js'

/**
 * Simphony shapes to barstock's. Menu items are numbered (`num`), priced per price level. A guest
 * check's menu item detail lines carry an aggregate count and total (JSON numbers); a condiment is a
 * line of its own menu item linked to its parent by `parDtlId`. Anything taken back (a void, an error
 * correct, a return) is a line of its own with a negative count beside the line it takes back: one made
 * before the check first closed means that line was never sold; one made later, on the reopened check,
 * is a correction of it. Lines rung on a reopened check are sold when it closed again.
 */

/** The price level read as the item's price: Simphony's level 1 is the default price. */
export const DEFAULT_PRICE_LEVEL = 1

const decimalField = (value: unknown, field: string) => readVendorDecimal(SIMPHONY_VENDOR, value, field)

export function toPosProducts(items: SimphonyMenuItemDimension[], prices: SimphonyMenuItemPrice[]): PosProduct[] {
  const defaultPrices = new Map(prices.filter((price) => price.prcLvlNum === DEFAULT_PRICE_LEVEL).map((price) => [price.num, decimalField(price.price, 'price').toFixed(2)]))
  return items.map((item) => ({
    posItemId: String(item.num),
    name: item.name,
    category: item.majGrpName ?? null,
    sku: null,
    price: defaultPrices.get(item.num) ?? null,
  }))
}

export function toPosStaff(employees: SimphonyEmployeeDimension[]): PosStaffMember[] {
  return employees.map((employee) => ({ staffId: String(employee.num), name: `${employee.fName ?? ''} ${employee.lName ?? ''}`.trim(), role: null }))
}

export interface SimphonyNames {
  menuItems: Map<string, string>
  employees: Map<string, string>
}

export function simphonyNames(items: SimphonyMenuItemDimension[], employees: SimphonyEmployeeDimension[]): SimphonyNames {
  return {
    menuItems: new Map(items.map((item) => [String(item.num), item.name])),
    employees: new Map(toPosStaff(employees).map((member) => [member.staffId, member.name])),
  }
}

/**
 * The lines of checks the BI API reported changed since the window's start (changedSinceUTC) that
 * happened inside the window: sales of checks closed in it, corrections and lines added on reopened
 * checks closed again in it. A check that closed before the window and was not closed again since its
 * start was reported because it reached the BI API late: all of it is new to barstock, whenever sold.
 */
export function toPosSaleLines(checks: SimphonyGuestCheck[], window: SalesWindow, names: SimphonyNames): PosSaleLine[] {
  return checks.flatMap((check) => {
    const closedAt = utcField(check.clsdUTC, 'clsdUTC')
    if (!check.clsdFlag || !closedAt) return []
    const reclosedAt = utcField(check.reopnClsdChkClsdUTC, 'reopnClsdChkClsdUTC')
    const arrivedLate = closedAt < window.start && !(reclosedAt && reclosedAt >= window.start)
    return checkLines(check, closedAt, names).filter((line) => line.soldAt < window.end && (arrivedLate || line.soldAt >= window.start))
  })
}

function utcField(value: string | null | undefined, field: string): Date | undefined {
  const time = parseSimphonyUtc(value)
  if (value && !time) throw new PosAdapterError('invalid_response', `${SIMPHONY_VENDOR} sent ${field} ${JSON.stringify(value)}, not a UTC time`)
  return time
}

/** A menu item detail line, read. */
interface MenuLine {
  dtlId: number
  parDtlId: number | null
  posItemId: string
  quantity: Big
  amount: Big
  at: Date
}

/** A line rung on the check: the units still sold, and those not yet matched to a take-back. */
interface RungLine {
  line: MenuLine
  sold: Big
  untaken: Big
}

function menuLines(check: SimphonyGuestCheck): MenuLine[] {
  return check.detailLines
    .filter((detail): detail is SimphonyDetailLine & { menuItem: { miNum: number } } => detail.menuItem !== null && detail.menuItem !== undefined)
    .map((detail) => ({
      dtlId: detail.dtlId,
      parDtlId: detail.parDtlId ?? null,
      posItemId: String(detail.menuItem.miNum),
      quantity: decimalField(detail.aggQty, 'aggQty'),
      amount: detail.aggTtl === null ? ZERO : decimalField(detail.aggTtl, 'aggTtl'),
      at: utcField(detail.detailUTC, 'detailUTC')!,
    }))
    .sort((a, b) => a.dtlId - b.dtlId)
}

/** A check's sales (modifiers linked to their parent, the tip split over the lines of its first close) and corrections. */
function checkLines(check: SimphonyGuestCheck, closedAt: Date, names: SimphonyNames): PosSaleLine[] {
  const { sold, corrections } = matchTakeBacks(menuLines(check), closedAt)
  const atFirstClose = sold.filter((entry) => entry.line.at <= closedAt)
  const tips = splitCheckTip(decimalField(check.tipTotal ?? 0, 'tipTotal'), atFirstClose.map(soldAmount))
  const lineIdOf = (dtlId: number) => `${check.guestCheckId}:${dtlId}`
  const staffId = check.empNum === null || check.empNum === undefined ? null : String(check.empNum)
  const common = (line: MenuLine) => ({
    lineId: lineIdOf(line.dtlId),
    posItemId: line.posItemId,
    name: names.menuItems.get(line.posItemId) ?? `Simphony menu item ${line.posItemId}`,
    unitPrice: unitPriceOf(line.amount, line.quantity),
    checkId: String(check.guestCheckId),
    staffId,
    staffName: staffId ? (names.employees.get(staffId) ?? null) : null,
  })
  const sales = sold.map(
    (entry): PosSaleLine => ({
      quantity: entry.sold.toString(),
      // A line rung on the reopened check is sold from then, not from the first close.
      soldAt: entry.line.at > closedAt ? entry.line.at : closedAt,
      tip: tips[atFirstClose.indexOf(entry)] ?? null,
      parentLineId: entry.line.parDtlId === null ? null : lineIdOf(entry.line.parDtlId),
      // Spread last: spread first and then added to, each line would take V8's slow path and a hidden class of its own.
      ...common(entry.line),
    }),
  )
  const taken = corrections.map(
    ({ takeBack, original }): PosSaleLine => ({
      quantity: takeBack.quantity.toString(),
      soldAt: takeBack.at,
      tip: null,
      correctsLineId: original ? lineIdOf(original.line.dtlId) : null,
      ...common(takeBack),
    }),
  )
  return [...sales, ...taken]
}

/**
 * Matches each take-back to the line it takes back: one made before the check first closed leaves that
 * line unsold; one made later is a correction of it. A take-back matching no line stays a correction of
 * nothing (⚠ a return rung on another check than its sale's).
 */
function matchTakeBacks(lines: MenuLine[], closedAt: Date): { sold: RungLine[]; corrections: { takeBack: MenuLine; original: RungLine | undefined }[] } {
  const rung = new RungLines()
  const corrections: { takeBack: MenuLine; original: RungLine | undefined }[] = []
  for (const line of lines) {
    if (line.quantity.gt(ZERO)) {
      rung.ring(line)
      continue
    }
    const original = rung.takeBack(
      line,
      lines.filter((other) => other.parDtlId === line.dtlId),
    )
    if (line.at > closedAt) corrections.push({ takeBack: line, original })
    else if (original) original.sold = original.sold.plus(line.quantity)
  }
  return { sold: rung.stillSold(), corrections }
}

function soldAmount(entry: RungLine): Big {
  return entry.line.amount.times(entry.sold).div(entry.line.quantity)
}

/** The lines rung on one check, matched to the take-backs that follow them. */
class RungLines {
  private readonly rung: RungLine[] = []
  /** The rung line (its dtlId) each take-back (by dtlId) took back, so a condiment's take-back finds its parent's. */
  private readonly takenBack = new Map<number, number>()

  ring(line: MenuLine): void {
    this.rung.push({ line, sold: line.quantity, untaken: line.quantity })
  }

  /**
   * The rung line a take-back takes back. The BI API gives no link between them (⚠ assumed): it is the
   * first line of the same menu item with exactly the units taken back still untaken (a void or return
   * takes a line back whole) and exactly the condiments taken back with it, else the first with enough
   * units; for a condiment, only among those on the line its parent's take-back took back.
   */
  takeBack(takeBack: MenuLine, itsCondiments: readonly MenuLine[]): RungLine | undefined {
    const parent = takeBack.parDtlId === null ? null : this.takenBack.get(takeBack.parDtlId)
    if (parent === undefined) return undefined
    const units = takeBack.quantity.abs()
    const candidates = this.rung.filter((candidate) => candidate.line.posItemId === takeBack.posItemId && candidate.line.parDtlId === parent && candidate.untaken.gte(units))
    const whole = candidates.filter((candidate) => candidate.untaken.eq(units))
    const original = whole.find((candidate) => this.carries(candidate, itsCondiments)) ?? whole[0] ?? candidates[0]
    if (!original) return undefined
    this.takenBack.set(takeBack.dtlId, original.line.dtlId)
    original.untaken = original.untaken.plus(takeBack.quantity)
    return original
  }

  /** Whether a rung line's condiments still untaken are exactly those of these condiment take-backs. */
  private carries(line: RungLine, condimentTakeBacks: readonly MenuLine[]): boolean {
    const untaken = this.rung.filter((condiment) => condiment.line.parDtlId === line.line.dtlId && condiment.untaken.gt(ZERO))
    return sameUnits(
      untaken.map((condiment) => [condiment.line.posItemId, condiment.untaken]),
      condimentTakeBacks.map((takeBack) => [takeBack.posItemId, takeBack.quantity.abs()]),
    )
  }

  stillSold(): RungLine[] {
    return this.rung.filter((entry) => entry.sold.gt(ZERO))
  }
}

/** Whether two lists of (menu item, units) hold the same entries, in any order. */
function sameUnits(a: [string, Big][], b: [string, Big][]): boolean {
  const key = (entries: [string, Big][]) =>
    entries
      .map(([item, units]) => `${item}×${units.toString()}`)
      .sort()
      .join()
  return key(a) === key(b)
}
