import type { FastifyRequest } from 'fastify'
import { platformErrors } from '../platform/errors.js'
import { runWrite } from '../platform/idempotency.js'
import { envelope } from '../platform/http/schemas.js'
import type { App } from '../platform/http/types.js'
import { posErrors } from './pos.errors.js'
import type { PosGateway } from './pos-gateway.js'
import { PushParams, PushReceipt } from './pos.schemas.js'
import { queuePushSync, verifyPush } from './push.service.js'

export interface PosPushRouteOptions {
  gateway: PosGateway
}

/** The URL the vendor posted to; behind a proxy it needs BARSTOCK_TRUST_PROXY for the forwarded protocol and host. */
function requestUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${request.url}`
}

/**
 * Vendor pushes (webhooks): public routes, authenticated by the vendor's signature instead of an API key.
 * Registered with their own prefix so the raw-body parser below stays local to them.
 */
export async function posPushRoutes(app: App, { gateway }: PosPushRouteOptions) {
  // Vendors sign the exact bytes they sent, so bodies stay Buffers here, whatever their content type
  // (within the general 1 MiB limit: Fastify's bodyLimit applies to this parser too).
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  app.post(
    '/:connection_id',
    {
      schema: {
        tags: ['POS'],
        summary: 'Receive a vendor push',
        description:
          'Called by the POS vendor, without an API key: the vendor\'s signature is verified with the connection\'s push_secret. A push about orders or the catalog queues an incremental sync of a realtime connection unless one is already queued or running, and answers 202 at once either way.',
        params: PushParams,
        response: { 202: envelope(PushReceipt) },
      },
      config: {
        public: true,
        errors: [
          posErrors.connectionNotFound,
          posErrors.pushNotSupported,
          posErrors.pushNotEnabled,
          posErrors.invalidPushSignature,
          platformErrors.payloadTooLarge,
        ],
      },
    },
    async (request, reply) => {
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      // The signature is checked before the transaction opens: a forged push never takes a lock.
      const push = await verifyPush(app.db, gateway, {
        connectionId: request.params.connection_id,
        headers: request.headers,
        rawBody,
        url: requestUrl(request),
      })
      return runWrite(app.db, request, reply, 202, (trx) => queuePushSync(trx, push))
    },
  )
}
