import { type RawBuilder, sql } from 'kysely'
import '../rollups.tables.js'
import type { Executor } from '../../platform/db/database.js'
import { textList } from '../../platform/db/text-list.js'
import { itemCostAt, itemCostOtherThanIn, itemCountLines } from '../../inventory/index.js'
import type { WindowNumbers, WindowTotals } from './count-windows.repository.js'

/**
 * Which count windows a report or a count reads, chosen in SQL from inventory's count lines
 * (itemCountLines) and joined to analytics' store of count windows: one row per item, whatever its
 * number of counts, instead of every count and then every window by key (docs/analytics.md, "Stored
 * count windows"). The rules that choose a window are written here once, in SQL:
 * - a report over a period: opening = the item's latest count at or before the start of its location's
 *   period, else its earliest inside it; closing = its latest count at or before the end; no window when
 *   the opening is not before the closing;
 * - a count: closing = that count, opening = the item's count before it;
 * and in both, the cause rules' earlier windows: the `previous` consecutive windows (pairs of one count
 * and the next) that end at the opening count, then, when the window spans more than two counts (weekly
 * counts in a 28-day report), every consecutive window between its opening and closing count.
 */

export interface CountPoint {
  countId: string
  countedAt: Date
  /** What was counted (a decimal string). */
  quantity: string
}

/**
 * An item's earlier windows in numbers, as the cause rules read them, kept flat as the plan's JSON gives
 * them (ten thousand windows a report: no array or object is made of each). They are consecutive (each
 * opens at the count the one before closes at), so the list holds their counts, oldest first, one row of
 * EARLIER_ROW values each, and window k (1 ≤ k < rows) runs from count k − 1 to count k. A count's row: its
 * time (epoch milliseconds, a fraction where the time has microseconds) and quantity, then the store's
 * totals of the window it closes (what the bar explains: deliveries + transfers in − transfers out −
 * recorded waste; usage; sale lines), null when the store lacks that window, and then the ids of its two
 * counts, null otherwise. The first row's totals and ids are null. Read with the functions below.
 */
export type EarlierWindows = (number | string | null)[]

/** Values per count in EarlierWindows. */
const EARLIER_ROW = 7

/** How many earlier windows the list holds. */
export function earlierCount(windows: EarlierWindows): number {
  return windows.length === 0 ? 0 : windows.length / EARLIER_ROW - 1
}

/** Window `index`'s opening and closing count: time (epoch ms) and quantity. */
export function earlierOpenedAt(windows: EarlierWindows, index: number): number {
  return windows[index * EARLIER_ROW] as number
}

export function earlierClosedAt(windows: EarlierWindows, index: number): number {
  return windows[(index + 1) * EARLIER_ROW] as number
}

export function earlierOpening(windows: EarlierWindows, index: number): number {
  return windows[index * EARLIER_ROW + 1] as number
}

export function earlierClosing(windows: EarlierWindows, index: number): number {
  return windows[(index + 1) * EARLIER_ROW + 1] as number
}

/** The store's totals of window `index`, in numbers; undefined when the store lacks it. */
export function earlierStored(windows: EarlierWindows, index: number): WindowNumbers | undefined {
  const row = (index + 1) * EARLIER_ROW
  const saleLines = windows[row + 4] as number | null
  if (saleLines === null) return undefined
  return { deliveries: windows[row + 2] as number, usage: windows[row + 3] as number, saleLines }
}

/** The ids of window `index`'s opening and closing count (given only for a window the store lacks). */
export function earlierCountIds(windows: EarlierWindows, index: number): { openingCountId: string; closingCountId: string } {
  const row = (index + 1) * EARLIER_ROW
  return { openingCountId: windows[row + 5] as string, closingCountId: windows[row + 6] as string }
}

/** A part of a window between two of its item's counts, valued at one cost. */
export interface CostPart {
  opening: CountPoint
  closing: CountPoint
  /** The cost in force at the part's closing count (a decimal string). */
  unitCost: string
  /** The store's totals of the part; undefined when it has none yet. */
  stored: WindowTotals | undefined
}

/** The costs of a window's time (inventory's cost history), decimal strings. */
export interface WindowCosts {
  /** The cost in force at the opening count, and at the closing count. */
  opening: string
  closing: string
  /**
   * When the cost in force differs between the counts inside the window: the window cut at each count
   * whose cost differs from the next count's, oldest first, each part valued at the cost at its closing
   * count. Empty otherwise: the whole window is valued at `closing`.
   */
  parts: CostPart[]
}

export interface PlannedWindow {
  opening: CountPoint
  closing: CountPoint
  /** The store's totals of the window; undefined when it has none yet. */
  stored: WindowTotals | undefined
  costs: WindowCosts
  /**
   * Oldest first: the windows before the opening count, then those inside the window when it spans more
   * than two counts. Undefined when planned without them (previous = 0).
   */
  earlier: EarlierWindows | undefined
}

export interface ItemPlan {
  /** The item's latest count up to the moment counts were read to, epoch milliseconds. */
  latestCountedAt: number
  /** Undefined when the rule finds no window (fewer than two counts). */
  window: PlannedWindow | undefined
}

/** How the windows are chosen: a report's period per location, or one count. */
export type WindowChoice =
  | { kind: 'period'; items: { id: string; location_id: string }[]; bounds: { location: string; start: Date; end: Date }[] }
  | { kind: 'count'; itemIds: string[]; countId: string; countedAt: Date }

/** How many windows a choice names: one per item. */
export function windowsChosen(choice: WindowChoice): number {
  return choice.kind === 'count' ? choice.itemIds.length : choice.items.length
}

interface ChoiceSql {
  /** A relation with item_id (and what the rules below read). */
  items: RawBuilder<unknown>
  /** Counts are read up to `until`, with `keepBefore` (itemCountLines). */
  until: Date
  keepBefore: { at: Date; count: number }
  /** Aggregates over the item's counts (count_id, counted_at, n: 1 = oldest read) giving the closing's and the opening's n. */
  closing: RawBuilder<number>
  opening: RawBuilder<number>
}

function choiceSql(choice: WindowChoice, previous: number): ChoiceSql {
  if (choice.kind === 'count') {
    const closing = sql<number>`max(n) FILTER (WHERE count_id = ${choice.countId})`
    // The count, the one before it and the earlier windows' counts before that.
    return {
      items: sql`unnest(${textList(choice.itemIds)}) AS i (item_id)`,
      until: choice.countedAt,
      keepBefore: { at: choice.countedAt, count: previous + 2 },
      closing,
      opening: sql<number>`${closing} - 1`,
    }
  }
  const starts = choice.bounds.map((bounds) => bounds.start.getTime())
  const ends = choice.bounds.map((bounds) => bounds.end.getTime())
  // Counts up to the latest end, and from the latest `previous + 1` at or before the earliest start: each
  // item's opening count and the earlier windows' counts are among them, whatever its location's period.
  return {
    items: sql`(SELECT i.item_id, b.start_at, b.end_at
      FROM unnest(${textList(choice.items.map((item) => item.id))}, ${textList(choice.items.map((item) => item.location_id))}) AS i (item_id, location_id)
      JOIN unnest(${choice.bounds.map((bounds) => bounds.location)}::text[], ${choice.bounds.map((bounds) => bounds.start.toISOString())}::timestamptz[],
        ${choice.bounds.map((bounds) => bounds.end.toISOString())}::timestamptz[]) AS b (location_id, start_at, end_at) USING (location_id)) i`,
    until: new Date(Math.max(...ends)),
    keepBefore: { at: new Date(Math.min(...starts)), count: previous + 1 },
    closing: sql<number>`max(n) FILTER (WHERE counted_at <= i.end_at)`,
    opening: sql<number>`coalesce(max(n) FILTER (WHERE counted_at <= i.start_at), min(n) FILTER (WHERE counted_at > i.start_at AND counted_at <= i.end_at))`,
  }
}

interface PlanRow {
  item_id: string
  latest_ms: number
  opening_id: string | null
  opening_ms: number
  opening: string
  closing_id: string | null
  closing_ms: number
  closing: string
  deliveries: string | null
  usage: string | null
  sale_lines: number | null
  lowest_net: string | null
  transfers_in: string | null
  transfers_out: string | null
  waste: string | null
  waste_cost: string | null
  /** The earlier windows as JSON text (EarlierWindows). */
  earlier: string | null
  opening_cost: string | null
  closing_cost: string | null
  cost_parts: CostPartRow[] | null
}

/** A cost part as the plan's JSON gives it: its counts, its cost, and the store's totals (nulls when it lacks them). */
type CostPartRow = [
  openingId: string,
  openingMs: number,
  opening: string,
  closingId: string,
  closingMs: number,
  closing: string,
  unitCost: string,
  ...stored: StoredColumns<string | null>,
]

/** The store's totals as the plan reads them: deliveries, usage, sale lines, lowest net, transfers in and out, waste, waste cost. */
type StoredColumns<Value> = [Value, Value, number | null, Value, Value, Value, Value, Value]

function storedTotals([deliveries, usage, saleLines, lowestNet, transfersIn, transfersOut, waste, wasteCost]: StoredColumns<string | null>): WindowTotals | undefined {
  if (saleLines === null) return undefined
  return {
    deliveries: deliveries as string,
    usage: usage as string,
    saleLines,
    lowestNet,
    transfersIn: transfersIn as string,
    transfersOut: transfersOut as string,
    waste: waste as string,
    wasteCost: wasteCost as string,
  }
}

function costPartOf(row: CostPartRow, dateAt: (ms: number) => Date): CostPart {
  const [openingId, openingMs, opening, closingId, closingMs, closing, unitCost, ...stored] = row
  return {
    opening: { countId: openingId, countedAt: dateAt(openingMs), quantity: opening },
    closing: { countId: closingId, countedAt: dateAt(closingMs), quantity: closing },
    unitCost,
    stored: storedTotals(stored),
  }
}

/** `dateAt` gives one Date per moment: items counted together share their counts' times. `previous` as planned. */
function windowOf(row: PlanRow, dateAt: (ms: number) => Date, previous: number): PlannedWindow | undefined {
  if (row.opening_id === null || row.closing_id === null) return undefined
  return {
    opening: { countId: row.opening_id, countedAt: dateAt(row.opening_ms), quantity: row.opening },
    closing: { countId: row.closing_id, countedAt: dateAt(row.closing_ms), quantity: row.closing },
    stored: storedTotals([row.deliveries, row.usage, row.sale_lines, row.lowest_net, row.transfers_in, row.transfers_out, row.waste, row.waste_cost]),
    costs: {
      opening: row.opening_cost as string,
      closing: row.closing_cost as string,
      // One part is the whole window at its closing cost (a change between two consecutive counts): nothing to cut.
      parts: row.cost_parts !== null && row.cost_parts.length > 1 ? row.cost_parts.map((part) => costPartOf(part, dateAt)) : [],
    },
    earlier: previous === 0 ? undefined : row.earlier === null ? [] : (JSON.parse(row.earlier) as EarlierWindows),
  }
}

/**
 * Each item's window by `choice`, with the store's totals, and its `previous` earlier windows (0: none,
 * and no windows inside either),
 * by item id; items without counts are absent. Numbers the cause rules read come as JSON numbers (the
 * database writes each numeric's decimal, JSON.parse takes its nearest double, as Number() would): one
 * JSON value per item costs the driver far less than a row per window.
 */
export async function plannedWindows(db: Executor, choice: WindowChoice, previous: number): Promise<Map<string, ItemPlan>> {
  if (choice.kind === 'count' || choice.items.length < SPLIT_PLAN_ITEMS || db.isTransaction) return planRows(db, choice, previous)
  const half = Math.ceil(choice.items.length / 2)
  const parts = await Promise.all([
    planRows(db, { ...choice, items: choice.items.slice(0, half) }, previous),
    planRows(db, { ...choice, items: choice.items.slice(half) }, previous),
  ])
  return new Map([...parts[0], ...parts[1]])
}

/**
 * From this many items a report's plan is two statements at once, each on its own pooled connection:
 * on PostgreSQL the plan is mostly the database's CPU (per item about 0.1 ms: two index scans, a window
 * function, seven probes into the store, the earlier windows' JSON), and two backends use two cores. One
 * statement against two, measured on the 5M-line bench database: 100 items 10.4 → 11.3 ms (slower), 200
 * items 16.4 → 14.0, 500 items 43 → 33, 1,000 items 86 → 61 (docs/benchmarks.md, run 7). On PGlite, one
 * connection, the halves run one after the other.
 */
const SPLIT_PLAN_ITEMS = 250

async function planRows(db: Executor, choice: WindowChoice, previous: number): Promise<Map<string, ItemPlan>> {
  const plans = new Map<string, ItemPlan>()
  const chosen = choiceSql(choice, previous)
  if (windowsChosen(choice) === 0) return plans
  const epochMs = (column: RawBuilder<unknown>) => sql`extract(epoch FROM ${column}) * 1000`
  const storedColumns = (store: string) =>
    sql.raw(`${store}.deliveries::text, ${store}.usage_units::text, ${store}.sale_lines::float8, ${store}.lowest_net::text,
      ${store}.transfers_in::text, ${store}.transfers_out::text, ${store}.waste_units::text, ${store}.waste_cost::text`)
  const itemId = sql.ref<string>('i.item_id')
  // The number of the first earlier window's closing count (windows close at counts 2 and later).
  const firstEarlier = sql<number>`greatest(2, ch.opening_n - ${previous}::int + 1)`
  // JSON text written by concatenation, parsed by the caller: cheaper than json_build_array per window
  // (docs/benchmarks.md, sessions 14 and 15). The windows are consecutive: each count once (EarlierWindows),
  // from the first window's opening count (its row without totals) to the last window's closing count.
  // Without earlier windows (previous = 0: a report's plan) it is not written at all: evaluated per item
  // to find nothing, it cost about 3 of the database's 70 ms of CPU in a 1,000-item report.
  const earlierWindowsJson = sql<string>`(SELECT '[' || string_agg((${epochMs(sql.ref('e.counted_at'))})::text || ',' || e.actual::text
          || CASE WHEN e.n < ${firstEarlier} THEN ',null,null,null,null,null'
            WHEN es.item_id IS NULL THEN ',null,null,null,' || to_json(e.previous_id)::text || ',' || to_json(e.count_id)::text
            ELSE ',' || (es.deliveries + es.transfers_in - es.transfers_out - es.waste_units)::text || ',' || es.usage_units::text
              || ',' || es.sale_lines::text || ',null,null' END,
        ',' ORDER BY e.n) || ']'
      FROM counts e
      LEFT JOIN analytics_count_windows es ON e.n >= ${firstEarlier} AND es.item_id = i.item_id AND es.opening_count_id = e.previous_id AND es.closing_count_id = e.count_id
      WHERE o.count_id IS NOT NULL AND e.n BETWEEN ${firstEarlier} - 1
        AND CASE WHEN ${previous}::int > 0 AND ch.closing_n - ch.opening_n >= 2 THEN ch.closing_n ELSE ch.opening_n END
      -- No window (previous = 0, or the opening count is the item's first): not its opening count alone either.
      HAVING max(e.n) >= ${firstEarlier})`
  const result = await sql<PlanRow>`
    SELECT i.item_id, p.*
    FROM ${chosen.items}
    CROSS JOIN LATERAL (
      -- The item's counts, numbered oldest first, each with the count before it (the window it closes).
      WITH counts AS (
        SELECT c.count_id, c.counted_at, c.actual, row_number() OVER w AS n,
          lag(c.count_id) OVER w AS previous_id, lag(c.counted_at) OVER w AS previous_at, lag(c.actual) OVER w AS previous
        FROM ${itemCountLines(db, sql.ref<string>('i.item_id'), chosen.until, chosen.keepBefore)} c
        WINDOW w AS (ORDER BY c.counted_at, c.recorded_at)),
      chosen AS (SELECT max(counted_at) AS latest_at, ${chosen.closing} AS closing_n, ${chosen.opening} AS opening_n FROM counts)
      SELECT ${epochMs(sql.ref('ch.latest_at'))}::float8 AS latest_ms,
        o.count_id AS opening_id, ${epochMs(sql.ref('o.counted_at'))}::float8 AS opening_ms, o.actual::text AS opening,
        c.count_id AS closing_id, ${epochMs(sql.ref('c.counted_at'))}::float8 AS closing_ms, c.actual::text AS closing,
        s.deliveries::text AS deliveries, s.usage_units::text AS usage, s.sale_lines::float8 AS sale_lines, s.lowest_net::text AS lowest_net,
        s.transfers_in::text AS transfers_in, s.transfers_out::text AS transfers_out, s.waste_units::text AS waste, s.waste_cost::text AS waste_cost,
        k.opening_cost::text AS opening_cost, k.closing_cost::text AS closing_cost,
        -- Only where the cost changed inside the window (rare): its parts, cut at each count whose cost differs from the next one's.
        CASE WHEN k.changed THEN (
          SELECT json_agg(json_build_array(p.opening_id, ${epochMs(sql.ref('p.opening_at'))}, p.opening::text, p.count_id, ${epochMs(sql.ref('p.counted_at'))},
              p.actual::text, p.unit_cost::text, ${storedColumns('ps')}) ORDER BY p.n)
          FROM (
            SELECT b.n, b.count_id, b.counted_at, b.actual, b.unit_cost, coalesce(lag(b.count_id) OVER bw, o.count_id) AS opening_id,
              coalesce(lag(b.counted_at) OVER bw, o.counted_at) AS opening_at, coalesce(lag(b.actual) OVER bw, o.actual) AS opening
            FROM (
              SELECT e.*, lead(e.unit_cost) OVER (ORDER BY e.n) AS next_cost
              FROM (SELECT e.n, e.count_id, e.counted_at, e.actual, ${itemCostAt(itemId, sql.ref('e.counted_at'))} AS unit_cost
                FROM counts e WHERE e.n > ch.opening_n AND e.n <= ch.closing_n) e) b
            WHERE b.next_cost IS DISTINCT FROM b.unit_cost
            WINDOW bw AS (ORDER BY b.n)) p
          LEFT JOIN analytics_count_windows ps ON ps.item_id = i.item_id AND ps.opening_count_id = p.opening_id AND ps.closing_count_id = p.count_id) END AS cost_parts,
        ${previous === 0 ? sql`NULL::text` : earlierWindowsJson} AS earlier
      FROM chosen ch
      LEFT JOIN counts o ON o.n = ch.opening_n AND ch.opening_n < ch.closing_n
      LEFT JOIN counts c ON c.n = ch.closing_n AND ch.opening_n < ch.closing_n AND o.count_id IS NOT NULL
      LEFT JOIN analytics_count_windows s ON s.item_id = i.item_id AND s.opening_count_id = o.count_id AND s.closing_count_id = c.count_id
      -- The costs of the window's time: at the opening and the closing count (an index probe each), and whether
      -- another cost took effect between them (a range scan of the receipts in the window). OFFSET 0 keeps
      -- each probe evaluated once (a flattened subquery would be repeated where its columns are read).
      LEFT JOIN LATERAL (
        SELECT f.opening_cost, f.closing_cost,
          f.opening_cost <> f.closing_cost OR ${itemCostOtherThanIn(itemId, sql.ref('f.closing_cost'), sql.ref('o.counted_at'), sql.ref('c.counted_at'))} AS changed
        FROM (SELECT ${itemCostAt(itemId, sql.ref('o.counted_at'))} AS opening_cost, ${itemCostAt(itemId, sql.ref('c.counted_at'))} AS closing_cost OFFSET 0) f) k
        ON c.count_id IS NOT NULL
      WHERE ch.latest_at IS NOT NULL) p`.execute(db)
  const dates = new Map<number, Date>()
  const dateAt = (ms: number) => {
    let date = dates.get(ms)
    if (!date) dates.set(ms, (date = new Date(ms)))
    return date
  }
  for (const row of result.rows) plans.set(row.item_id, { latestCountedAt: Math.trunc(row.latest_ms), window: windowOf(row, dateAt, previous) })
  return plans
}
