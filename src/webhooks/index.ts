/** Webhooks' front door, for the wiring (no domain imports webhooks: events reach them through the outbox). */
export { webhookRoutes } from './webhooks.routes.js'
export { startWebhookWorker } from './dispatcher.js'
export { loadWebhookSettings } from './webhook-settings.js'
export { countPendingDeliveries, oldestPendingDeliveryAt } from './delivery-backlog.js'
