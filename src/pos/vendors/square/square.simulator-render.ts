import { dollarsToCents, MENU, menuEntry, MODIFIERS, stableId, type MenuEntry, type SimCheck, type SimLine, type SimModifier, type StaffEntry } from '../../simulation/bar-data.js'
import type {
  SquareCatalogObject,
  SquareMoney,
  SquareOrder,
  SquareOrderLineItem,
  SquareOrderLineItemModifier,
  SquareOrderState,
  SquarePayment,
  SquareRefund,
  SquareReturnLineItem,
  SquareTeamMember,
} from './square.client.js'

/**
 * The simulated bar in Square's shapes, as of a moment: the catalog (items, variations, categories, a
 * modifier list), orders and payments of a check, team members. Money is the bar's cents read as the
 * seller currency's minor units (a USD bar sells a pint for 750 cents, a JPY one for ¥750).
 *
 * How the bar's events become Square orders (Square has no void after close and no reopening: an order
 * is COMPLETED or CANCELED for good, and UpdateOrder refuses both):
 * - a check is a sale order closed when the check closed; lines voided before close are not on it, and
 *   a check whose every line was voided is a CANCELED order;
 * - a refund, and a manager's void after close, is a return order of its own, closed when it happened,
 *   whose `returns[]` names the sale order and line (with its modifiers); the sale order lists the refund;
 * - the round rung when a check was reopened is an order of its own, closed when the check closed again.
 */

/** The bar's location, and a sister location of the same seller whose catalog differs. */
export const BAR_LOCATION_ID = 'L8SIMBAR0001'
export const SISTER_LOCATION_ID = 'L8SIMBAR0002'

const MODIFIER_LIST_NAME = 'Bar Add-ons'

/** Square's ids for the simulated bar's things, stable per seed; the menu's and staff's are hashed once. */
export class SquareIds {
  private readonly menuIds = new Map<string, string>()
  constructor(private readonly seed: number) {}
  private menuId(key: string, length: number): string {
    let id = this.menuIds.get(key)
    if (id === undefined) {
      id = stableId(this.seed, key, length)
      this.menuIds.set(key, id)
    }
    return id
  }
  category = (name: string) => this.menuId(`square:category:${name}`, 24)
  item = (key: string) => this.menuId(`square:item:${key}`, 24)
  variation = (key: string) => this.menuId(`square:variation:${key}`, 24)
  modifierList = (name: string) => this.menuId(`square:modifier-list:${name}`, 24)
  modifier = (key: string) => this.menuId(`square:modifier:${key}`, 24)
  teamMember = (key: string) => `TM${this.menuId(`square:team:${key}`, 14)}`
  order = (checkId: string) => stableId(this.seed, `square:order:${checkId}`, 27)
  reopenOrder = (checkId: string) => stableId(this.seed, `square:reopen:${checkId}`, 27)
  payment = (checkId: string) => stableId(this.seed, `square:payment:${checkId}`, 28)
  reopenPayment = (checkId: string) => stableId(this.seed, `square:reopen-payment:${checkId}`, 28)
  lineUid = (lineId: string) => stableId(this.seed, `square:line:${lineId}`, 22)
  returnOrder = (lineId: string) => stableId(this.seed, `square:return:${lineId}`, 27)
  returnUid = (lineId: string) => stableId(this.seed, `square:return-uid:${lineId}`, 22)
  refund = (lineId: string) => stableId(this.seed, `square:refund:${lineId}`, 28)
}

/** One order a check becomes (see the file comment), and when it closed. */
export type OrderRef =
  | { kind: 'sale'; check: SimCheck; closedAt: Date }
  | { kind: 'reopen'; check: SimCheck; closedAt: Date }
  | { kind: 'return'; check: SimCheck; line: SimLine; closedAt: Date }

/** One payment: a sale order's, or a reopened check's new round's. */
export type PaymentRef = { kind: 'sale' | 'reopen'; check: SimCheck; createdAt: Date }

/** When a line was taken back after its check closed (refunded, or voided by a manager), if it was. */
function takenBackAt(line: SimLine): Date | null {
  return line.refundedAt ?? line.voidedAfterCloseAt
}

const onFirstClose = (line: SimLine) => !line.voided && !line.addedOnReopen

/** The orders a check has become by `asOf`. */
export function ordersOfCheck(check: SimCheck, asOf: Date): OrderRef[] {
  const orders: OrderRef[] = [{ kind: 'sale', check, closedAt: check.closedAt }]
  if (check.reclosedAt && check.reclosedAt <= asOf) orders.push({ kind: 'reopen', check, closedAt: check.reclosedAt })
  for (const line of check.lines) {
    const at = takenBackAt(line)
    if (!line.voided && at && at <= asOf) orders.push({ kind: 'return', check, line, closedAt: at })
  }
  return orders
}

/** The payments a check has had by `asOf`: a cancelled sale has none. */
export function paymentsOfCheck(check: SimCheck, asOf: Date): PaymentRef[] {
  const payments: PaymentRef[] = check.lines.some(onFirstClose) ? [{ kind: 'sale', check, createdAt: check.closedAt }] : []
  if (check.reclosedAt && check.reclosedAt <= asOf) payments.push({ kind: 'reopen', check, createdAt: check.reclosedAt })
  return payments
}

export function orderState(order: OrderRef): SquareOrderState {
  return order.kind === 'sale' && !order.check.lines.some(onFirstClose) ? 'CANCELED' : 'COMPLETED'
}

/** A paid order's ids, lines, tip in the bar's cents, times, and the refunds made on it by then. */
interface PaidOrderParts {
  orderId: string
  paymentId: string
  lines: readonly SimLine[]
  tipCents: number
  createdAt: Date
  closedAt: Date
  updatedAt: Date
  refunds: SquareRefund[]
}

/** Renders the simulated bar in one currency, its orders and payments at the location asked for. */
export class SquareRenderer {
  constructor(
    private readonly ids: SquareIds,
    private readonly currency: string,
    private readonly locationId: string,
  ) {}

  private money(amount: number): SquareMoney {
    return { amount, currency: this.currency }
  }

  /**
   * Categories, items with their variations, and one modifier list of the stock-using modifiers, all at
   * every location; plus an item only the sister location sells and one every location but the bar sells.
   */
  catalog(): SquareCatalogObject[] {
    const categories = [...new Set([...MENU, ...MODIFIERS].map((entry) => entry.category))].map(
      (name): SquareCatalogObject => ({ type: 'CATEGORY', id: this.ids.category(name), is_deleted: false, present_at_all_locations: true, category_data: { name } }),
    )
    const modifierListId = this.ids.modifierList(MODIFIER_LIST_NAME)
    const modifierList: SquareCatalogObject = {
      type: 'MODIFIER_LIST',
      id: modifierListId,
      is_deleted: false,
      present_at_all_locations: true,
      modifier_list_data: {
        name: MODIFIER_LIST_NAME,
        modifiers: MODIFIERS.map((entry) => ({
          type: 'MODIFIER',
          id: this.ids.modifier(entry.key),
          is_deleted: false,
          present_at_all_locations: true,
          modifier_data: { name: entry.name, price_money: this.money(dollarsToCents(entry.price)), modifier_list_id: modifierListId },
        })),
      },
    }
    const withModifiers = (entry: MenuEntry) => MODIFIERS.some((modifier) => modifier.parentKinds.includes(entry.kind))
    const items = MENU.map((entry) => this.item(entry, withModifiers(entry) ? [modifierListId] : [], { present_at_all_locations: true }))
    const sisterOnly = this.item(
      { key: 'sister-frozen-margarita', name: 'Frozen Margarita (Sister Bar)', category: 'Cocktails', kind: 'cocktail', price: '13.00', sku: 'CK-FRZM' },
      [],
      { present_at_all_locations: false, present_at_location_ids: [SISTER_LOCATION_ID] },
    )
    const notAtBar = this.item({ key: 'kitchen-nachos', name: 'Loaded Nachos (Kitchen Locations)', category: 'Food', kind: 'food', price: '12.00', sku: 'FD-NACH' }, [], {
      present_at_all_locations: true,
      absent_at_location_ids: [BAR_LOCATION_ID],
    })
    const allItems = [...items, sisterOnly, notAtBar]
    return [...categories, modifierList, ...allItems, ...allItems.flatMap((item) => item.item_data?.variations ?? [])]
  }

  /** An item with its one variation ("Regular", as Square names an only variation), present where `presence` says. */
  private item(
    entry: MenuEntry,
    modifierListIds: string[],
    presence: Pick<SquareCatalogObject, 'present_at_all_locations' | 'present_at_location_ids' | 'absent_at_location_ids'>,
  ): SquareCatalogObject {
    const variation: SquareCatalogObject = {
      type: 'ITEM_VARIATION',
      id: this.ids.variation(entry.key),
      is_deleted: false,
      ...presence,
      item_variation_data: {
        item_id: this.ids.item(entry.key),
        name: 'Regular',
        sku: entry.sku,
        pricing_type: 'FIXED_PRICING',
        price_money: this.money(dollarsToCents(entry.price)),
      },
    }
    return {
      type: 'ITEM',
      id: this.ids.item(entry.key),
      is_deleted: false,
      ...presence,
      item_data: {
        name: entry.name,
        categories: [{ id: this.ids.category(entry.category), ordinal: 0 }],
        variations: [variation],
        ...(modifierListIds.length ? { modifier_list_info: modifierListIds.map((id) => ({ modifier_list_id: id, enabled: true })) } : {}),
      },
    }
  }

  teamMember(staff: StaffEntry): SquareTeamMember {
    const title = staff.role.charAt(0).toUpperCase() + staff.role.slice(1)
    return {
      id: this.ids.teamMember(staff.key),
      is_owner: false,
      status: 'ACTIVE',
      given_name: staff.firstName,
      family_name: staff.lastName,
      wage_setting: { job_assignments: [{ job_title: title, pay_type: 'NONE' }] },
    }
  }

  /** An order as it stands at `asOf` (a sale order lists the refunds made by then). */
  order(ref: OrderRef, asOf: Date): SquareOrder {
    switch (ref.kind) {
      case 'sale':
        return this.saleOrder(ref.check, asOf)
      case 'reopen': {
        const { check, closedAt } = ref
        const lines = check.lines.filter((line) => line.addedOnReopen)
        const orderId = this.ids.reopenOrder(check.checkId)
        return this.paidOrder({
          orderId,
          paymentId: this.ids.reopenPayment(check.checkId),
          lines,
          tipCents: 0,
          createdAt: check.closedAt,
          closedAt,
          updatedAt: closedAt,
          refunds: [],
        })
      }
      case 'return':
        return this.returnOrder(ref.check, ref.line, ref.closedAt)
    }
  }

  private saleOrder(check: SimCheck, asOf: Date): SquareOrder {
    const sold = check.lines.filter(onFirstClose)
    const orderId = this.ids.order(check.checkId)
    if (!sold.length) {
      const closedAt = check.closedAt.toISOString()
      const voided = check.lines.filter((line) => !line.addedOnReopen).map((line) => this.lineItem(line))
      return {
        id: orderId,
        location_id: this.locationId,
        state: 'CANCELED',
        created_at: check.openedAt.toISOString(),
        updated_at: closedAt,
        closed_at: closedAt,
        line_items: voided,
        total_money: this.money(0),
      }
    }
    const takenBack = sold.flatMap((line) => {
      const at = takenBackAt(line)
      return at && at <= asOf ? [{ line, at }] : []
    })
    // A refund updates its sale order: updated_at is the latest one's time.
    const updatedAt = takenBack.reduce((latest, { at }) => (at > latest ? at : latest), check.closedAt)
    return this.paidOrder({
      orderId,
      paymentId: this.ids.payment(check.checkId),
      lines: sold,
      tipCents: dollarsToCents(check.tip),
      createdAt: check.openedAt,
      closedAt: check.closedAt,
      updatedAt,
      refunds: takenBack.map(({ line, at }) => this.refund(check, line, at)),
    })
  }

  /** A completed order of `lines`, paid by one card tender at `closedAt`. */
  private paidOrder({ orderId, paymentId, lines, tipCents, createdAt, closedAt, updatedAt, refunds }: PaidOrderParts): SquareOrder {
    const lineItems = lines.map((line) => this.lineItem(line))
    const totalCents = lines.reduce((total, line) => total + lineCents(line), 0)
    const closed = closedAt.toISOString()
    return {
      id: orderId,
      location_id: this.locationId,
      state: 'COMPLETED',
      created_at: createdAt.toISOString(),
      updated_at: updatedAt.toISOString(),
      closed_at: closed,
      line_items: lineItems,
      tenders: [
        {
          id: paymentId,
          location_id: this.locationId,
          transaction_id: orderId,
          created_at: closed,
          amount_money: this.money(totalCents + tipCents),
          tip_money: this.money(tipCents),
          type: 'CARD',
          payment_id: paymentId,
        },
      ],
      refunds,
      total_money: this.money(totalCents),
      total_tip_money: this.money(tipCents),
    }
  }

  private lineItem(line: SimLine): SquareOrderLineItem {
    const entry = menuEntry(line.itemKey)
    const unitCents = dollarsToCents(line.unitPrice)
    return {
      uid: this.ids.lineUid(line.lineId),
      name: entry.name,
      quantity: String(line.quantity),
      catalog_object_id: this.ids.variation(entry.key),
      variation_name: 'Regular',
      // Undefined rather than a spread-in field (V8's slow path per line); JSON leaves it out the same.
      modifiers: line.modifiers.length ? line.modifiers.map((modifier) => this.lineModifier(line, modifier)) : undefined,
      base_price_money: this.money(unitCents),
      variation_total_price_money: this.money(unitCents * line.quantity),
      gross_sales_money: this.money(lineCents(line)),
      total_money: this.money(lineCents(line)),
    }
  }

  /** The bar rings a modifier once per unit of its line: Square's modifier quantity 1 (per unit of the line). */
  private lineModifier(line: SimLine, modifier: SimModifier): SquareOrderLineItemModifier {
    const entry = menuEntry(modifier.itemKey)
    const unitCents = dollarsToCents(modifier.unitPrice)
    return {
      uid: this.ids.lineUid(modifier.lineId),
      catalog_object_id: this.ids.modifier(entry.key),
      name: entry.name,
      quantity: String(modifier.quantity / line.quantity),
      base_price_money: this.money(unitCents),
      total_price_money: this.money(unitCents * modifier.quantity),
    }
  }

  private refund(check: SimCheck, line: SimLine, at: Date): SquareRefund {
    return {
      id: this.ids.refund(line.lineId),
      location_id: this.locationId,
      transaction_id: this.saleOrderIdOf(check, line),
      tender_id: line.addedOnReopen ? this.ids.reopenPayment(check.checkId) : this.ids.payment(check.checkId),
      created_at: at.toISOString(),
      reason: line.refundedAt ? 'Returned goods' : 'Voided after close',
      amount_money: this.money(lineCents(line)),
      status: 'APPROVED',
    }
  }

  private saleOrderIdOf(check: SimCheck, line: SimLine): string {
    return line.addedOnReopen ? this.ids.reopenOrder(check.checkId) : this.ids.order(check.checkId)
  }

  /** The return order taking back the whole of `line` (and its modifiers) at `at`. */
  private returnOrder(check: SimCheck, line: SimLine, at: Date): SquareOrder {
    const sold = this.lineItem(line)
    const returned: SquareReturnLineItem = {
      uid: this.ids.lineUid(`return:${line.lineId}`),
      source_line_item_uid: sold.uid,
      name: sold.name,
      quantity: sold.quantity,
      catalog_object_id: sold.catalog_object_id,
      return_modifiers: sold.modifiers?.map((modifier) => ({
        uid: this.ids.lineUid(`return:${modifier.uid}`),
        source_modifier_uid: modifier.uid,
        catalog_object_id: modifier.catalog_object_id,
        name: modifier.name,
        quantity: modifier.quantity,
        base_price_money: modifier.base_price_money,
        total_price_money: modifier.total_price_money,
      })),
      base_price_money: sold.base_price_money,
      total_money: sold.total_money,
    }
    const closedAt = at.toISOString()
    return {
      id: this.ids.returnOrder(line.lineId),
      location_id: this.locationId,
      state: 'COMPLETED',
      created_at: closedAt,
      updated_at: closedAt,
      closed_at: closedAt,
      returns: [{ uid: this.ids.returnUid(line.lineId), source_order_id: this.saleOrderIdOf(check, line), return_line_items: [returned] }],
      refunds: [this.refund(check, line, at)],
      total_money: this.money(0),
    }
  }

  payment(ref: PaymentRef): SquarePayment {
    const check = ref.check
    const reopen = ref.kind === 'reopen'
    const amount = check.lines.filter(reopen ? (line) => line.addedOnReopen : onFirstClose).reduce((total, line) => total + lineCents(line), 0)
    const tip = reopen ? 0 : dollarsToCents(check.tip)
    const staffId = this.ids.teamMember(check.staffKey)
    const createdAt = ref.createdAt.toISOString()
    return {
      id: reopen ? this.ids.reopenPayment(check.checkId) : this.ids.payment(check.checkId),
      created_at: createdAt,
      updated_at: createdAt,
      amount_money: this.money(amount),
      tip_money: this.money(tip),
      total_money: this.money(amount + tip),
      status: 'COMPLETED',
      source_type: 'CARD',
      location_id: this.locationId,
      order_id: reopen ? this.ids.reopenOrder(check.checkId) : this.ids.order(check.checkId),
      team_member_id: staffId,
      employee_id: staffId,
    }
  }
}

/** A line's amount with its modifiers, in the bar's cents. */
function lineCents(line: SimLine): number {
  const modifierCents = line.modifiers.reduce((total, modifier) => total + dollarsToCents(modifier.unitPrice) * modifier.quantity, 0)
  return dollarsToCents(line.unitPrice) * line.quantity + modifierCents
}
