import Fastify from 'fastify'
import pg from 'pg'

/**
 * The inventory benchmark's baseline, a process of its own: a bare Fastify app on a `pg` pool of 10
 * (barstock's default pool size) doing the SQL barstock's endpoints do, with no schemas, no auth, no
 * rate limit and no envelope beyond `{ data }`. Forked by bench/inventory.ts, which passes DATABASE_URL
 * and BENCH_ACCOUNT; it sends its URL over IPC once listening.
 */

const ACCOUNT = process.env.BENCH_ACCOUNT ?? 'acct_default'
const ENVIRONMENT = 'production'
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })

const app = Fastify()

app.get<{ Params: { id: string } }>('/items/:id', async (request) => {
  const { rows } = await pool.query('SELECT * FROM inventory_items WHERE account_id = $1 AND environment = $2 AND deleted_at IS NULL AND id = $3', [
    ACCOUNT,
    ENVIRONMENT,
    request.params.id,
  ])
  return { data: rows[0] }
})

app.get('/items', async () => {
  const { rows } = await pool.query(
    `SELECT *, count(*) OVER () AS total FROM inventory_items
     WHERE account_id = $1 AND environment = $2 AND deleted_at IS NULL AND category = $3
     ORDER BY name, id LIMIT 50`,
    [ACCOUNT, ENVIRONMENT, 'spirits'],
  )
  return { data: rows }
})

app.put<{ Params: { id: string }; Body: { quantity: number } }>('/items/:id', async (request) => {
  await pool.query('UPDATE inventory_items SET quantity = $1, last_updated = now() WHERE id = $2', [request.body.quantity, request.params.id])
  return { data: { id: request.params.id } }
})

let eventSequence = 0

/**
 * The writes barstock's PUT must make (the item locked, a ledger row, the item's new quantity and an
 * outbox event, in one transaction), as bare SQL: what the mandated ledger and outbox cost by themselves.
 * Barstock sends no NOTIFY for an event no webhook subscribes to (the bench subscribes none), so neither
 * does this.
 */
async function writeWithLedger(id: string, quantity: number): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    const before = await client.query<{ quantity: string; location_id: string; cost_per_unit: string | null }>(
      'SELECT quantity, location_id, cost_per_unit FROM inventory_items WHERE account_id = $1 AND environment = $2 AND deleted_at IS NULL AND id = $3 FOR UPDATE',
      [ACCOUNT, ENVIRONMENT, id],
    )
    const item = before.rows[0]!
    await client.query(
      `WITH m AS (
         INSERT INTO stock_movements (account_id, environment, item_id, location_id, unit_cost, kind, delta, quantity_before, quantity_after, actor, occurred_at)
         VALUES ($1, $2, $3, $4, $5, 'adjustment', $6::numeric - $7::numeric, $7, $6, 'bench', now())),
       e AS (
         INSERT INTO outbox_events (id, account_id, environment, kind, data)
         VALUES ($8, $1, $2, 'inventory.updated', $9))
       UPDATE inventory_items SET quantity = $6, last_updated = now() WHERE id = $3`,
      [
        ACCOUNT,
        ENVIRONMENT,
        id,
        item.location_id,
        item.cost_per_unit,
        quantity,
        item.quantity,
        `evt_bare_${process.pid}_${eventSequence++}`,
        JSON.stringify({ item_id: id, quantity }),
      ],
    )
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK')
    throw error
  } finally {
    client.release()
  }
}

app.put<{ Params: { id: string }; Body: { quantity: number } }>('/items-with-ledger/:id', async (request) => {
  await writeWithLedger(request.params.id, request.body.quantity)
  return { data: { id: request.params.id } }
})

const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.send!({ url })
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0))
})
