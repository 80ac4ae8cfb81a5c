/** Ordering's front door, for the wiring (no domain imports ordering). */
export { distributorRoutes } from './distributors.routes.js'
export { orderRoutes } from './orders.routes.js'
export { startPurchaseOrderWorker } from './purchase-order-worker.js'
export { orderingEvents } from './ordering.events.js'
