import type { Executor, Tenant, Trx } from '../platform/db/database.js'
import { invalidParameter } from '../platform/errors.js'
import type { PageRequest } from '../platform/http/pagination.js'
import { newId } from '../platform/ids.js'
import { wakeJobWorkers } from '../platform/jobs.js'
import { DELIVERY_QUEUE } from './dispatcher.repository.js'
import { ALL_EVENTS, PING_EVENT } from './webhook-events.js'
import { webhookErrors } from './webhooks.errors.js'
import {
  cancelPendingDeliveries,
  findDelivery,
  findWebhookRow,
  insertPingDelivery,
  insertWebhook,
  listDeliveryRows,
  listWebhookRows,
  lockWebhookRow,
  rescheduleDelivery,
  rowToCreated,
  rowToDetail,
  rowToSummary,
  rowToUpdated,
  updateWebhookRow,
  type WebhookRow,
} from './webhooks.repository.js'
import type { CreatedWebhook, CreateWebhookBody, Delivery, ListDeliveriesQuery, UpdatedWebhook, UpdateWebhookBody, WebhookDetail, WebhookSummary } from './webhooks.schemas.js'
import { generateWebhookSecret } from './signature.js'

/** `["*"]` stands alone: combined with named kinds it would be ambiguous (invalid_parameter). */
function checkEvents(events: string[]): void {
  if (events.includes(ALL_EVENTS) && events.length > 1) {
    throw invalidParameter('events', events, 'events takes either ["*"] or a list of event kinds, not both')
  }
}

async function getWebhookRow(db: Executor, tenant: Tenant, id: string): Promise<WebhookRow> {
  const row = await findWebhookRow(db, tenant, id)
  if (!row) throw webhookErrors.webhookNotFound(id)
  return row
}

async function lockWebhook(trx: Trx, tenant: Tenant, id: string): Promise<WebhookRow> {
  const row = await lockWebhookRow(trx, tenant, id)
  if (!row) throw webhookErrors.webhookNotFound(id)
  return row
}

/**
 * Creates an active webhook; it receives events committed after it. `input.url` must already have
 * passed checkWebhookUrl (done outside the transaction: it may wait on DNS). Throws invalid_parameter.
 */
export async function createWebhook(trx: Trx, tenant: Tenant, input: CreateWebhookBody): Promise<CreatedWebhook> {
  checkEvents(input.events)
  const row = await insertWebhook(trx, tenant, {
    id: newId('wh'),
    url: input.url,
    events: input.events,
    secret: input.secret ?? generateWebhookSecret(),
  })
  return rowToCreated(row)
}

export async function listWebhooks(db: Executor, tenant: Tenant, page: PageRequest): Promise<{ webhooks: WebhookSummary[]; total: number }> {
  const { rows, total } = await listWebhookRows(db, tenant, page)
  return { webhooks: rows.map(rowToSummary), total }
}

/** A webhook with its delivery statistics; throws webhook_not_found. */
export async function getWebhook(db: Executor, tenant: Tenant, id: string): Promise<WebhookDetail> {
  return rowToDetail(await getWebhookRow(db, tenant, id))
}

/**
 * Changes a webhook's events and/or status. Disabling cancels its waiting deliveries; enabling starts
 * its failure clock afresh. Throws webhook_not_found, invalid_parameter.
 */
export async function updateWebhook(trx: Trx, tenant: Tenant, id: string, input: UpdateWebhookBody): Promise<UpdatedWebhook> {
  const current = await lockWebhook(trx, tenant, id)
  if (input.events) checkEvents(input.events)
  const enabling = input.status === 'active' && current.status !== 'active'
  const updated = await updateWebhookRow(trx, id, { ...input, ...(enabling && { failing_since: null }) })
  if (input.status === 'disabled') await cancelPendingDeliveries(trx, [id])
  return rowToUpdated(updated)
}

/** Deletes a webhook: nothing more is sent to it and its secret is erased. Throws webhook_not_found. */
export async function deleteWebhook(trx: Trx, tenant: Tenant, id: string): Promise<{ id: string; deleted: true }> {
  await lockWebhook(trx, tenant, id)
  await updateWebhookRow(trx, id, { deleted_at: new Date(), secret: '' })
  await cancelPendingDeliveries(trx, [id])
  return { id, deleted: true }
}

/** A webhook's deliveries, newest first, each with its attempts. Throws webhook_not_found. */
export async function listDeliveries(db: Executor, tenant: Tenant, webhookId: string, query: ListDeliveriesQuery, page: PageRequest) {
  await getWebhookRow(db, tenant, webhookId)
  return listDeliveryRows(db, tenant, webhookId, query, page)
}

/** Only an active webhook is sent anything; a manual send to a disabled one is invalid_parameter. */
function requireActive(webhook: WebhookRow): void {
  if (webhook.status !== 'active') {
    throw invalidParameter('status', webhook.status, `Webhook ${webhook.id} is disabled; enable it (PUT status active) first`)
  }
}

/**
 * Sends a delivery again, due at once, with a fresh retry window (whatever its status was).
 * Throws webhook_not_found, delivery_not_found, invalid_parameter (webhook disabled).
 */
export async function retryDelivery(trx: Trx, tenant: Tenant, webhookId: string, deliveryId: string): Promise<Delivery> {
  const webhook = await lockWebhook(trx, tenant, webhookId)
  if (!(await findDelivery(trx, tenant, webhookId, deliveryId))) throw webhookErrors.deliveryNotFound([deliveryId, webhookId])
  requireActive(webhook)
  await rescheduleDelivery(trx, tenant, webhookId, deliveryId)
  await wakeJobWorkers(trx, DELIVERY_QUEUE)
  return (await findDelivery(trx, tenant, webhookId, deliveryId))!
}

/**
 * Queues a `ping` delivery to the webhook, sent at once by the dispatcher like any event.
 * Throws webhook_not_found, invalid_parameter (webhook disabled).
 */
export async function sendTestPing(trx: Trx, tenant: Tenant, webhookId: string): Promise<Delivery> {
  requireActive(await lockWebhook(trx, tenant, webhookId))
  const id = await insertPingDelivery(trx, tenant, { webhookId, eventId: newId('evt'), kind: PING_EVENT })
  await wakeJobWorkers(trx, DELIVERY_QUEUE)
  return (await findDelivery(trx, tenant, webhookId, id))!
}
