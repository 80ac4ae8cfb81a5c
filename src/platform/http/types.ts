import type { FastifyInstance, FastifyBaseLogger, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { type TUnsafe, Type } from 'typebox'
import type { BulkWrites } from '../bulk-writes.js'
import type { Db } from '../db/database.js'

declare module 'fastify' {
  interface FastifyInstance {
    db: Db
    /** The process's turns for bulk writes (BulkWrites): a sales import runs in one. */
    bulkWrites: BulkWrites
  }
}

/** The Fastify instance every route plugin receives: TypeBox schemas give the handlers their types. */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>

/** A string limited to `values`, as a JSON-schema enum (clearer validation messages than anyOf). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}
