import type { FastifyRequest } from 'fastify'
import { platformErrors } from '../../platform/errors.js'
import { runWrite } from '../../platform/idempotency.js'
import { envelope } from '../../platform/http/schemas.js'
import type { App } from '../../platform/http/types.js'
import { posErrors } from '../pos.errors.js'
import type { PosGateway } from '../connections/pos-gateway.js'
import { AppPushParams, AppPushReceipt, AppPushSetup, PushParams, PushReceipt } from './push.schemas.js'
import { appPushSetup, queueAppPushSyncs, queuePushSync, verifyAppPush, verifyPush } from './push.service.js'

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
          "Called by the POS vendor, without an API key: the vendor's signature is verified with the connection's push_secret. A push about orders or the catalog queues an incremental sync of a realtime connection unless one is already queued or running, and answers 202 at once either way.",
        params: PushParams,
        response: { 202: envelope(PushReceipt) },
      },
      config: {
        public: true,
        errors: [posErrors.connectionNotFound, posErrors.pushNotSupported, posErrors.pushNotEnabled, posErrors.invalidPushSignature, platformErrors.payloadTooLarge],
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

  app.post(
    '/apps/:pos_type',
    {
      schema: {
        tags: ['POS'],
        summary: "Receive a vendor app's push (Clover)",
        description:
          "The one webhook URL of a vendor app that posts every merchant's changes to it (Clover: `/v1/pos/push/apps/clover`), called without an API key. The push names its merchants; each live connection of those merchants (found by a keyed hash of the merchant id, in any account) checks the X-Clover-Auth code against its push_secret, and those it verifies are treated as a push to their own push_url: an incremental sync of each realtime, active one is queued unless one is queued or running. 202 at once. Clover's unsigned set-up request ({verificationCode}) is answered 202 and its code kept for the operator: GET on this URL, with an API key, shows it. A push naming no connected merchant changes nothing; one whose code no connection of its merchants holds is 401.",
        params: AppPushParams,
        response: { 202: envelope(AppPushReceipt) },
      },
      config: {
        public: true,
        errors: [posErrors.pushNotSupported, posErrors.invalidPushSignature, platformErrors.payloadTooLarge],
      },
    },
    async (request, reply) => {
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      const push = await verifyAppPush(app.db, gateway, { posType: request.params.pos_type, headers: request.headers, rawBody, url: requestUrl(request) })
      // The code is for whoever set the URL up in the vendor's dashboard: no connection is named, it is kept per vendor.
      if (push.verificationCode !== undefined) request.log.info({ pos_type: request.params.pos_type }, 'POS app webhook verification code received')
      return runWrite(app.db, request, reply, 202, (trx) => queueAppPushSyncs(trx, request.params.pos_type, push))
    },
  )

  app.get(
    '/apps/:pos_type',
    {
      schema: {
        tags: ['POS'],
        summary: "Read a vendor app's push set-up (Clover)",
        description:
          "The app's one webhook URL (relative to the service address) and the verification code the vendor last posted to it when the URL was set up (Clover sends {verificationCode} once, unsigned, naming no merchant), to enter in the vendor's dashboard; null until one arrives. The URL serves the whole deployment, so every account reads the same answer.",
        params: AppPushParams,
        response: { 200: envelope(AppPushSetup) },
      },
      config: { permission: 'pos:read', errors: [posErrors.pushNotSupported] },
    },
    async (request) => ({ data: await appPushSetup(app.db, request.params.pos_type) }),
  )
}
