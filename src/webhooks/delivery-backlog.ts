import { sql } from 'kysely'
import type { Db } from '../platform/db/database.js'

/** What the service's metrics gauges read of the webhook deliveries waiting to be sent (src/service-metrics.ts). */

/** Pending deliveries (due now or waiting for a retry), counted up to `cap`: an index-only walk of at most `cap` entries. */
export async function countPendingDeliveries(db: Db, cap: number): Promise<number> {
  const row = await db
    .selectFrom((eb) => eb.selectFrom('webhook_deliveries').select(sql<number>`1`.as('one')).where('status', '=', 'pending').limit(cap).as('pending'))
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** When the oldest pending delivery was created (with its event), if any is pending: one index lookup. */
export async function oldestPendingDeliveryAt(db: Db): Promise<Date | undefined> {
  const row = await db.selectFrom('webhook_deliveries').select('created_at').where('status', '=', 'pending').orderBy('created_at').limit(1).executeTakeFirst()
  return row?.created_at
}
