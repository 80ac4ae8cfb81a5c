import type { SimulatorOptions } from '../adapter.js'
import { checksClosedBetween, checksForDay, MENU, MODIFIERS, STAFF, type SimCheck, type SimLine } from '../../simulation/bar-data.js'
import type { RevelEmployee, RevelEstablishment, RevelModifier, RevelOrder, RevelOrderItem, RevelProduct, RevelProductCategory, RevelResource } from './revel.resources.js'
import { dateBounds, idsFilteredOn, matchesFilters, sortObjects, type Filter, type ListQuery } from './revel.simulated-queries.js'
import { DAY_MS } from '../../../platform/zoned-time.js'

/**
 * A Revel account as the simulator serves it: its establishments (the first is the simulated bar, a
 * second, when asked for, another bar under its own seed) rendered as Revel's resources as of `now()`.
 *
 * How the bar's events look in Revel (⚠ assumed where revel.yml is silent, see docs/pos-vendors.md):
 * - an order's `updated_date` is when it was last closed: a reopened order, once closed again, moves
 *   to that time and shows the item added meanwhile; before that it shows its first state;
 * - a line voided before the close has a `voided_date` inside the order's life, one voided by a manager
 *   after the close a `voided_date` after the order's `updated_date`;
 * - a refund is a return: a new item of the order, of negative quantity, created when the refund was
 *   made, carrying the line's modifiers; it does not change the order's `updated_date`;
 * - modifiers are `modifieritems` of their item, `qty` per unit of the item.
 */

export interface RevelSimulatorOptions extends SimulatorOptions {
  /** Establishments of the account (default 1). */
  establishments?: number
}

const HOUR_MS = 3_600_000
/** Order ids are ((day × ESTABLISHMENT_SLOTS) + establishment − 1) × ORDER_ID_DAY + the check's number. */
const ORDER_ID_DAY = 100_000
const ESTABLISHMENT_SLOTS = 10
/** Item ids are order id × 10 + line number (≤ 4); a line's return is + RETURN_ID_OFFSET. Modifier items: item id × 10 + n. */
const RETURN_ID_OFFSET = 5
/** Product ids are (establishment − 1) × PRODUCT_ID_BLOCK + menu position. */
const PRODUCT_ID_BLOCK = 1_000

/** How far from its check's first close each date of an order or item can lie: [earliest, latest] in ms. */
const DATE_SPANS: Partial<Record<RevelResource, Record<string, [number, number]>>> = {
  // Opened at most 90 minutes before closing; closed again at most an hour after.
  Order: { created_date: [-2 * HOUR_MS, 0], updated_date: [0, HOUR_MS] },
  // Rung when opened or reopened; returns up to 48 hours after; voids up to 90 minutes either side.
  OrderItem: { created_date: [-2 * HOUR_MS, 48 * HOUR_MS], voided_date: [-2 * HOUR_MS, 2 * HOUR_MS] },
}

interface EstablishmentCheck {
  establishment: number
  check: SimCheck
}

export class RevelSimulatedAccount {
  private readonly now: () => Date
  private readonly historyDays: number
  private readonly establishmentIds: number[]
  private readonly categories = [...new Set(MENU.map((entry) => entry.category))]

  constructor(private readonly options: RevelSimulatorOptions) {
    this.now = options.now ?? (() => new Date())
    this.historyDays = options.historyDays ?? 120
    this.establishmentIds = Array.from({ length: options.establishments ?? 1 }, (_, index) => index + 1)
  }

  /** The objects of a list request, filtered and sorted, or why the simulator cannot list them. */
  list(resource: RevelResource, query: ListQuery): Record<string, unknown>[] | { refused: string } {
    const objects = this.candidates(resource, query.filters)
    if ('refused' in objects) return objects
    const matching = (objects as Record<string, unknown>[]).filter((object) => matchesFilters(resource, object, query.filters))
    return sortObjects(matching, query.orderBy)
  }

  private candidates(resource: RevelResource, filters: readonly Filter[]): object[] | { refused: string } {
    switch (resource) {
      case 'Establishment':
        return this.establishmentIds.map(
          (id): RevelEstablishment => ({ id, name: id === 1 ? 'The Simulated Bar' : `The Simulated Bar ${id}`, resource_uri: resourceUri('Establishment', id) }),
        )
      case 'Product':
        return this.establishmentIds.flatMap((establishment) => MENU.map((_, index) => this.product(establishment, index)))
      case 'Modifier':
        return MODIFIERS.map(
          (entry, index): RevelModifier => ({ id: index + 1, name: entry.name, price: Number(entry.price), active: true, resource_uri: resourceUri('Modifier', index + 1) }),
        )
      case 'ProductCategory':
        return this.categories.map((name, index): RevelProductCategory => ({ id: index + 1, name, resource_uri: resourceUri('ProductCategory', index + 1) }))
      case 'Employee':
        return STAFF.map(
          (member, index): RevelEmployee => ({
            id: index + 1,
            first_name: member.firstName,
            last_name: member.lastName,
            active: true,
            resource_uri: resourceUri('Employee', index + 1),
          }),
        )
      case 'Order':
        return this.checksFor(resource, filters, idsFilteredOn(filters, 'id')).map((found) => this.order(found))
      case 'OrderItem': {
        const orderIds = idsFilteredOn(filters, 'order')
        const dated = filters.some((filter) => filter.field.endsWith('_date'))
        if (!orderIds && !dated) return { refused: 'the simulator lists order items by order or by date only' }
        return this.checksFor(resource, filters, orderIds).flatMap((found) => this.orderItems(found))
      }
    }
  }

  /** The checks behind the orders asked for by id, or else those the query's dates can reach. */
  private checksFor(resource: RevelResource, filters: readonly Filter[], orderIds: number[] | null): EstablishmentCheck[] {
    if (orderIds) return orderIds.flatMap((id) => this.checkOfOrder(id) ?? [])
    let from = this.now().getTime() - this.historyDays * DAY_MS
    let to = this.now().getTime()
    for (const [field, [earliest, latest]] of Object.entries(DATE_SPANS[resource] ?? {})) {
      const bounds = dateBounds(filters, field)
      from = Math.max(from, bounds.from - latest)
      to = Math.min(to, bounds.to - earliest + 1)
    }
    if (from >= to) return []
    const range = { now: this.now(), historyDays: this.historyDays, volume: this.options.volume }
    return this.establishmentIds.flatMap((establishment) =>
      checksClosedBetween(this.seedOf(establishment), new Date(from), new Date(to), range).map((check) => ({ establishment, check })),
    )
  }

  /** The check behind an order id, if it was closed by now and within the history. */
  private checkOfOrder(orderId: number): EstablishmentCheck | undefined {
    const slot = Math.floor(orderId / ORDER_ID_DAY)
    const establishment = (slot % ESTABLISHMENT_SLOTS) + 1
    const day = Math.floor(slot / ESTABLISHMENT_SLOTS)
    if (!this.establishmentIds.includes(establishment)) return undefined
    const checkId = `${day}-${orderId % ORDER_ID_DAY}`
    const check = checksForDay(this.seedOf(establishment), day * DAY_MS, this.options.volume).find((candidate) => candidate.checkId === checkId)
    const now = this.now().getTime()
    if (!check || check.closedAt.getTime() >= now || check.closedAt.getTime() < now - this.historyDays * DAY_MS) return undefined
    return { establishment, check }
  }

  private seedOf(establishment: number): number {
    return this.options.seed + establishment - 1
  }

  private product(establishment: number, index: number): RevelProduct {
    const entry = MENU[index]!
    const id = (establishment - 1) * PRODUCT_ID_BLOCK + index + 1
    return {
      id,
      name: entry.name,
      price: Number(entry.price),
      cost: null,
      sku: entry.sku,
      category: this.categories.indexOf(entry.category) + 1,
      active: true,
      establishment,
      resource_uri: resourceUri('Product', id),
    }
  }

  /** Whether a reopened check has been closed again by now. */
  private reclosed(check: SimCheck): boolean {
    return check.reclosedAt !== null && check.reclosedAt <= this.now()
  }

  private order({ establishment, check }: EstablishmentCheck): RevelOrder & Record<string, unknown> {
    const id = orderIdOf(establishment, check)
    return {
      id,
      uuid: uuidOf(id),
      establishment,
      customer: null,
      created_by: employeeIdOf(check.staffKey),
      web_order: false,
      closed: true,
      has_items: true,
      has_history: this.reclosed(check),
      created_date: check.openedAt.toISOString(),
      updated_date: (this.reclosed(check) ? check.reclosedAt! : check.closedAt).toISOString(),
      resource_uri: resourceUri('Order', id),
    }
  }

  private orderItems({ establishment, check }: EstablishmentCheck): RevelOrderItem[] {
    const orderId = orderIdOf(establishment, check)
    const now = this.now()
    return check.lines.flatMap((line, index) => {
      if (line.addedOnReopen && !this.reclosed(check)) return []
      const rungAt = line.addedOnReopen ? check.reclosedAt! : check.openedAt
      const item = this.orderItem(establishment, check, line, { id: orderId * 10 + index, quantity: line.quantity, createdAt: rungAt, voidedAt: this.voidedAt(check, line) })
      if (!line.refundedAt || line.refundedAt > now) return [item]
      const returned = this.orderItem(establishment, check, line, {
        id: orderId * 10 + RETURN_ID_OFFSET + index,
        quantity: -line.quantity,
        createdAt: line.refundedAt,
        voidedAt: null,
      })
      return [item, returned]
    })
  }

  /** When a line was voided, as of now: halfway through the check's life when voided before the close. */
  private voidedAt(check: SimCheck, line: SimLine): Date | null {
    if (line.voided) return new Date((check.openedAt.getTime() + check.closedAt.getTime()) / 2)
    return line.voidedAfterCloseAt && line.voidedAfterCloseAt <= this.now() ? line.voidedAfterCloseAt : null
  }

  private orderItem(establishment: number, check: SimCheck, line: SimLine, item: { id: number; quantity: number; createdAt: Date; voidedAt: Date | null }): RevelOrderItem {
    const productIndex = MENU.findIndex((entry) => entry.key === line.itemKey)
    return {
      id: item.id,
      order: resourceUri('Order', orderIdOf(establishment, check)),
      product: resourceUri('Product', (establishment - 1) * PRODUCT_ID_BLOCK + productIndex + 1),
      quantity: item.quantity,
      initial_price: Number(line.unitPrice),
      price: Number(line.unitPrice),
      created_by: employeeIdOf(check.staffKey),
      created_date: item.createdAt.toISOString(),
      voided_date: item.voidedAt?.toISOString() ?? null,
      modifieritems: line.modifiers.map((modifier, index) => ({
        id: item.id * 10 + index,
        modifier: resourceUri('Modifier', MODIFIERS.findIndex((entry) => entry.key === modifier.itemKey) + 1),
        qty: modifier.quantity / line.quantity,
        modifier_price: Number(modifier.unitPrice),
      })),
      resource_uri: resourceUri('OrderItem', item.id),
    }
  }
}

function resourceUri(resource: RevelResource, id: number): string {
  return `/resources/${resource}/${id}/`
}

function orderIdOf(establishment: number, check: SimCheck): number {
  const [day, index] = check.checkId.split('-').map(Number) as [number, number]
  return (day * ESTABLISHMENT_SLOTS + establishment - 1) * ORDER_ID_DAY + index
}

/** A UUID made of the order id: unique and stable, and far cheaper than a hash for every order of every page. */
function uuidOf(orderId: number): string {
  const hex = orderId.toString(16).padStart(20, '0')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(12, 15)}-a${hex.slice(15, 18)}-${hex.slice(18).padStart(12, '0')}`
}

function employeeIdOf(staffKey: string): number {
  return STAFF.findIndex((member) => member.key === staffKey) + 1
}
