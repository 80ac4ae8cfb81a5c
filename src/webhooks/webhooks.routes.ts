import { tenantOf } from '../platform/auth/auth-plugin.js'
import { runWrite, runWriteAfter } from '../platform/idempotency.js'
import { pageRequest, paginate } from '../platform/http/pagination.js'
import { Deleted, envelope, listEnvelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import { checkWebhookUrl, type Resolver, systemResolver, type UrlGuard } from '../platform/network-guard.js'
import { webhookErrors } from './webhooks.errors.js'
import {
  CreatedWebhook,
  createWebhookBody,
  Delivery,
  DeliveryParams,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  UpdatedWebhook,
  updateWebhookBody,
  WebhookDetail,
  WebhookParams,
  WebhookSummary,
} from './webhooks.schemas.js'
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, retryDelivery, sendTestPing, updateWebhook } from './webhooks.service.js'

export interface WebhookRoutesOptions {
  /** BARSTOCK_WEBHOOK_ALLOW_PRIVATE: accept URLs on loopback and private addresses. */
  allowPrivate: boolean
  resolver?: Resolver
  /** Every event kind a webhook may subscribe to: the event registry of the composition root. */
  eventKinds: readonly string[]
}

const tags = ['Webhooks']
const permission = 'webhooks:manage' as const
const { webhookNotFound, deliveryNotFound } = webhookErrors

export async function webhookRoutes(app: App, options: WebhookRoutesOptions) {
  const urlGuard: UrlGuard = { allowPrivate: options.allowPrivate, resolver: options.resolver ?? systemResolver }

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'List webhooks',
        description: 'The account’s webhooks in the key’s environment, oldest first.',
        querystring: ListWebhooksQuery,
        response: { 200: listEnvelope(WebhookSummary) },
      },
      config: { permission },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { webhooks, total } = await listWebhooks(app.db, tenantOf(request), page)
      return { data: webhooks, pagination: paginate(request, page, total) }
    },
  )

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create a webhook',
        description: 'The secret is returned here only (generated when omitted). URLs on loopback, private and link-local addresses are refused with invalid_parameter.',
        body: createWebhookBody(options.eventKinds),
        response: { 201: envelope(CreatedWebhook) },
      },
      config: { permission },
    },
    async (request, reply) =>
      // Outside the transaction: the check may wait on DNS.
      runWriteAfter(
        app.db,
        request,
        reply,
        201,
        () => checkWebhookUrl(request.body.url, urlGuard),
        (trx, url) => createWebhook(trx, tenantOf(request), { ...request.body, url }),
      ),
  )

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Get a webhook with its delivery statistics',
        description: 'The webhook and how its delivery attempts went; the secret is never shown again.',
        params: WebhookParams,
        response: { 200: envelope(WebhookDetail) },
      },
      config: { permission, errors: [webhookNotFound] },
    },
    async (request) => ({ data: await getWebhook(app.db, tenantOf(request), request.params.id) }),
  )

  app.put(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Change a webhook’s events or status',
        description: 'Disabling cancels the deliveries still waiting; nothing is sent to a disabled webhook.',
        params: WebhookParams,
        body: updateWebhookBody(options.eventKinds),
        response: { 200: envelope(UpdatedWebhook) },
      },
      config: { permission, errors: [webhookNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => updateWebhook(trx, tenantOf(request), request.params.id, request.body)),
  )

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a webhook',
        description: 'Nothing more is sent to it; its waiting deliveries are cancelled and its secret erased.',
        params: WebhookParams,
        response: { 200: envelope(Deleted('id')) },
      },
      config: { permission, errors: [webhookNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => deleteWebhook(trx, tenantOf(request), request.params.id)),
  )

  app.get(
    '/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'List a webhook’s deliveries with every attempt',
        description: 'Newest first; filter by status.',
        params: WebhookParams,
        querystring: ListDeliveriesQuery,
        response: { 200: listEnvelope(Delivery) },
      },
      config: { readReplica: true, permission, errors: [webhookNotFound] },
    },
    async (request) => {
      const page = pageRequest(request.query)
      const { deliveries, total } = await listDeliveries(app.db, tenantOf(request), request.params.id, request.query, page)
      return { data: deliveries, pagination: paginate(request, page, total) }
    },
  )

  app.post(
    '/:id/deliveries/:delivery_id/retry',
    {
      schema: {
        tags,
        summary: 'Send a delivery again',
        description: 'Due at once, with a fresh retry window, whatever its status was. The webhook must be active.',
        params: DeliveryParams,
        response: { 200: envelope(Delivery) },
      },
      config: { permission, errors: [webhookNotFound, deliveryNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 200, (trx) => retryDelivery(trx, tenantOf(request), request.params.id, request.params.delivery_id)),
  )

  app.post(
    '/:id/test',
    {
      schema: {
        tags,
        summary: 'Send a test ping',
        description: 'Queues a `ping` delivery (data `{webhook_id}`), sent at once; its outcome appears in the deliveries list. The webhook must be active.',
        params: WebhookParams,
        response: { 201: envelope(Delivery) },
      },
      config: { permission, errors: [webhookNotFound] },
    },
    (request, reply) => runWrite(app.db, request, reply, 201, (trx) => sendTestPing(trx, tenantOf(request), request.params.id)),
  )
}
