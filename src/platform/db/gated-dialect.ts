import type { DatabaseConnection, Dialect, Driver, TransactionSettings } from 'kysely'
import type { FifoGate } from './fifo-gate.js'

/**
 * A Kysely driver that hands out its one connection through `gate`. Kysely holds a connection for a
 * whole transaction, or for one statement outside a transaction, so those are the units that queue.
 */
class GatedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly gate: FifoGate,
  ) {}

  init(): Promise<void> {
    return this.inner.init()
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.gate.acquire()
    try {
      return await this.inner.acquireConnection()
    } catch (error) {
      this.gate.release()
      throw error
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.releaseConnection(connection)
    } finally {
      this.gate.release()
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings)
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection)
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection)
  }

  destroy(): Promise<void> {
    return this.inner.destroy()
  }
}

/** `dialect` with its driver's connection handed out through `gate`. */
export function gatedDialect(dialect: Dialect, gate: FifoGate): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new GatedDriver(dialect.createDriver(), gate),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  }
}
