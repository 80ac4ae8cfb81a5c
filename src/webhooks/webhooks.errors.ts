import { defineError } from '../platform/errors.js'

export const webhookErrors = {
  webhookNotFound: defineError('webhook_not_found', 404, 'Webhook %s does not exist'),
  deliveryNotFound: defineError('delivery_not_found', 404, 'Delivery %s of webhook %s does not exist'),
}
