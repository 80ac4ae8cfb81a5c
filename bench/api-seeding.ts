import pg from 'pg'

/** What the seeding benches (bench/analytics.ts, bench/tenants.ts) share: a server's API as a client calls it. */

/** A running server and the API key a bench calls it with. */
export interface ApiTarget {
  url: string
  key: string
}

const began = performance.now()
/** A progress line on stderr, with the seconds since the bench started. */
export function progress(message: string): void {
  console.error(`[${((performance.now() - began) / 1000).toFixed(0)} s] ${message}`)
}

/** Times a request answered 503 (a statement timeout on a saturated machine: nothing was written) is sent again. */
const RETRIES_AFTER_503 = 5

/** Requests answered 503 and sent again, since the process started (a bench reads it before and after a phase). */
export const resentAfter503 = { count: 0 }

export async function call(server: ApiTarget, method: string, path: string, body?: unknown, retries = RETRIES_AFTER_503): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status === 503 && retries > 0) {
    progress(`${method} ${path}: 503, sent again`)
    resentAfter503.count++
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 2)))
    return call(server, method, path, body, retries - 1)
  }
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`)
  return JSON.parse(text).data
}

/** A deterministic stream of numbers in [0, 1). */
export function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

/**
 * Waits until the server's background forecast refit has settled: the forecast answers, comes from a
 * refit that started after the last import of history (due BARSTOCK_FORECAST_REFIT_DELAY_SECONDS, 60 s,
 * after the first import it had not seen, plus the refit's own time) and stayed the same for a while.
 */
export async function forecastsSettled(server: ApiTarget, lastImport: Date, pollMs = 15_000): Promise<number> {
  let last: string | undefined
  for (;;) {
    const response = await fetch(`${server.url}/v1/analytics/forecast`, { headers: { 'x-api-key': server.key } })
    const { data } = (await response.json()) as { data?: { generated_at: string; forecasts: unknown[] } }
    const fresh = data !== undefined && new Date(data.generated_at) > lastImport
    if (response.status === 200 && data && fresh && data.generated_at === last) return data.forecasts.length
    last = data?.generated_at
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}

/**
 * ANALYZE of a PostgreSQL database while it is being seeded, as autovacuum's autoanalyze would on a
 * production server (it analyzes a table once a tenth of it changed): this machine's server runs with
 * autovacuum off, and a thousand items without statistics made each import's SKU lookup a join of every
 * distinct sold item with every item (10 s an import at load 19, and 62 s for 5,000 pairs). That lookup
 * no longer depends on statistics (bench/sku-lookup.ts); an import's other statements still do.
 */
export async function analyzeStatistics(url: string): Promise<void> {
  await onDatabase(url, (client) => client.query('ANALYZE'))
}

/**
 * VACUUM ANALYZE of a PostgreSQL database, as autovacuum would have done on a production server by the
 * time a report is asked for: without it (a server run with autovacuum off, as this machine's is), a
 * freshly seeded database has no planner statistics and no visibility map, and index-only scans visit
 * the heap for every row.
 */
export async function vacuumAnalyze(url: string): Promise<void> {
  await onDatabase(url, (client) => client.query('VACUUM ANALYZE'))
}

/** `work` with a connection of its own to the database at `url`, closed after. */
export async function onDatabase<Result>(url: string, work: (client: pg.Client) => Promise<Result>): Promise<Result> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/**
 * A sandbox Square connection (its location id `squareLocationId`) and `count` bottled items at
 * main_bar, each mapped from its own POS item `PLU-<index>`, through the API, `inFlight` items at a time.
 * Answers the connection's id and the items' ids in index order.
 */
export async function seedMappedItems(server: ApiTarget, count: number, squareLocationId: string, inFlight = 1): Promise<{ connectionId: string; itemIds: string[] }> {
  const connection = await call(server, 'POST', '/v1/pos/connections', {
    pos_type: 'square',
    name: 'Bench Square',
    credentials: { access_token: 'EAAAlBenchAccessTokenForTheSandbox00000000000000000000000000000', location_id: squareLocationId },
    sync_frequency: 'daily',
  })
  const itemIds: string[] = []
  let next = 0
  const seeder = async () => {
    for (let index = next++; index < count; index = next++) {
      const item = await call(server, 'POST', '/v1/inventory/items', {
        name: `Bench spirit ${index} 750ml`,
        sku: `BENCH-${index}`,
        category: index % 3 === 0 ? 'beer' : 'spirits',
        quantity: 20,
        unit: 'bottle',
        size_ml: 750,
        location: 'main_bar',
        reorder_point: 4,
        cost_per_unit: 18.5,
      })
      itemIds[index] = item.id
      await call(server, 'POST', `/v1/pos/connections/${connection.id}/mappings`, { pos_item_id: `PLU-${index}`, inventory_item_id: item.id, conversion_factor: 1.5 })
    }
  }
  await Promise.all(Array.from({ length: inFlight }, seeder))
  return { connectionId: connection.id, itemIds }
}

/**
 * One sale line at main_bar of one of `items` bench items (seedMappedItems' POS items), 1 or 2 pours, sold
 * at the time `soldAt` draws. The draws come in a fixed order (item, quantity, time), so a seed gives the
 * same lines.
 */
export function benchSaleLine(next: () => number, items: number, lineId: string, soldAt: () => number) {
  const item = Math.floor(next() * items)
  const quantity = 1 + Math.floor(next() * 2)
  return {
    location: 'main_bar',
    pos_item_id: `PLU-${item}`,
    name: `Bench spirit ${item} 1.5oz`,
    quantity,
    unit_price: 8,
    sold_at: new Date(soldAt()).toISOString(),
    line_id: lineId,
  }
}
