import { orderingErrors } from './ordering.errors.js'
import type { OrderRow } from './orders.repository.js'
import type { OrderStatus } from './ordering.tables.js'

/** The moves of DECISIONS.md; delivered and cancelled are final. */
const TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  draft: ['submitted', 'cancelled'],
  submitted: ['processing', 'cancelled'],
  processing: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
}

/** Throws invalid_status unless the order can move to `to`. */
export function checkTransition(order: OrderRow, to: OrderStatus): void {
  const allowed = TRANSITIONS[order.status]
  if (!allowed.includes(to)) {
    const next = allowed.length > 0 ? `it can become ${allowed.join(' or ')}` : 'it can no longer change'
    throw orderingErrors.invalidStatus(`Order ${order.id} is ${order.status}; it cannot become ${to} (${next})`, {
      status: order.status,
      requested: to,
      allowed,
    })
  }
}

/** Throws invalid_status when the order is delivered or cancelled: it can no longer change. */
export function checkStillChangeable(order: OrderRow): void {
  if (TRANSITIONS[order.status].length === 0) {
    throw orderingErrors.invalidStatus(`Order ${order.id} is ${order.status}; it can no longer change`, { status: order.status })
  }
}
