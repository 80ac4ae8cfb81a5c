import { defineError } from '../platform/errors.js'

/** The Ordering codes of the spec, with the statuses of DECISIONS.md. Messages never carry contact_email. */
export const orderingErrors = {
  orderNotFound: defineError('order_not_found', 404, 'Order %s does not exist'),
  distributorNotFound: defineError('distributor_not_found', 404, 'Distributor %s does not exist'),
  invalidStatus: defineError('invalid_status', 409, '%s'),
  belowMinOrder: defineError('below_min_order', 400, 'Order total %s is below the distributor minimum of %s'),
  itemNotAvailable: defineError('item_not_available', 400, '%s'),
  insufficientStock: defineError('insufficient_stock', 400, '%s'),
}
