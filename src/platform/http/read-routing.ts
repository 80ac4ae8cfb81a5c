import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type ReadScope, type ReplicaMonitor, readScope } from '../db/read-replica.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * This route's reads may be served by the read replica (BARSTOCK_REPLICA_URL): a report or a large
     * list or CSV that may be up to BARSTOCK_REPLICA_MAX_LAG_MS behind other keys' writes. Its
     * transactions still run on the primary, and a key that wrote moments ago reads from the primary.
     */
    readReplica?: boolean
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export interface ReadRoutingOptions {
  /** The open database's replica monitor; without one every read stays on the primary. */
  replica: ReplicaMonitor | undefined
}

/**
 * Gives every request a read scope (docs/operations.md, "Read replicas"): on a route declaring
 * `readReplica`, once its key is known, the scope allows the replica unless that key wrote within the
 * read-your-writes window; the answer to any other method notes a write by its key. The pool reads the
 * scope (read-replica.ts), so handlers keep using `app.db`.
 */
async function readRouting(app: FastifyInstance, { replica }: ReadRoutingOptions) {
  if (!replica) return
  // Callback form: the rest of the request (hooks, handler) runs inside the scope entered here.
  app.addHook('onRequest', (_request, _reply, done) => readScope.run({ replica: false } satisfies ReadScope, done))
  app.addHook('preHandler', (request, _reply, done) => {
    const scope = readScope.getStore()
    if (scope && request.routeOptions.config.readReplica === true && SAFE_METHODS.has(request.method)) scope.replica = replica.mayRead(request.auth?.keyId)
    done()
  })
  app.addHook('onSend', (request, _reply, payload, done) => {
    const keyId = request.auth?.keyId
    if (keyId !== undefined && !SAFE_METHODS.has(request.method)) replica.noteWrite(keyId)
    done(null, payload)
  })
}

export const readRoutingPlugin = fp(readRouting, { name: 'barstock-read-routing' })
