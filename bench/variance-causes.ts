import { cpus } from 'node:os'
import { type Caller, json, type TestContext } from '../test/helpers/context.js'
import { createItem } from '../test/helpers/inventory.js'
import { createConnection, createPosTestContext } from '../test/pos/pos-helpers.js'
import { seededRandom } from '../src/pos/simulation/bar-data.js'
import { DAY_MS } from '../src/platform/zoned-time.js'

/**
 * Labelled detection bench of the variance causes (docs/variance-causes.md, "Detection bench"): seeded
 * months of 20 items per case — honest, a steady 10 % over-pour, a 3-bottle theft in week 3 — with
 * weekly counts read to a tenth of a bottle, Poisson daily demand and pour noise, sales sent as one line a
 * day per item and as one line per sale, driven through the API in-process (the test context: PGlite, or
 * PostgreSQL with DATABASE_URL). One 28-day variance report per seed and sales shape measures every item.
 * Prints top-1 and top-2 per cause and the share of honest items flagged (|variance_percentage| above
 * the threshold or any cause, DECISIONS). Run: `npm run bench:causes` (BENCH_SEEDS=1,2,3 picks the seeds,
 * BENCH_SHAPES=line_a_day,line_per_sale the sales shapes).
 */

const CASES = ['honest', 'over_pouring', 'theft_or_breakage'] as const
type Case = (typeof CASES)[number]
const SHAPES = ['line_a_day', 'line_per_sale'] as const
type Shape = (typeof SHAPES)[number]

const ITEMS_PER_CASE = 20
const WEEKS = 4
/** 1.5 oz pours of 1 L bottles, in bottles. */
const POUR_OZ = 1.5
const POUR = (POUR_OZ * 29.5735) / 1000
/** Each pour's size varies by this standard deviation (a share of the pour): a jigger in a hurry. */
const POUR_NOISE = 0.08
const OVER_POUR = 1.1
const THEFT_BOTTLES = 3
/** Mean pours a day, drawn per item from this range: a slow liqueur to the well vodka. */
const DEMAND = [4, 40] as const
const OPENING_STOCK = 60
const THRESHOLD = 5

function poisson(random: () => number, mean: number): number {
  // Knuth's method: fine for means under 50.
  const limit = Math.exp(-mean)
  let product = random()
  let count = 0
  while (product > limit) {
    count++
    product *= random()
  }
  return count
}

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
}

interface BenchItem {
  id: string
  posItemId: string
  label: Case
  meanPours: number
  stock: number
}

/** `day` days after `start` (the month's first noon), `hour` hours and `minutes` minutes later. */
function dayAt(start: number, day: number, hour: number, minutes = 0): string {
  return new Date(start + day * DAY_MS + hour * 3_600_000 + minutes * 60_000).toISOString()
}

async function post(ctx: TestContext, caller: Caller, url: string, body: unknown) {
  const response = await ctx.request('POST', url, { key: caller.key, body })
  if (response.statusCode !== 201) throw new Error(`${url}: ${response.statusCode} ${response.body}`)
  return json(response).data
}

/** One month of one seed and sales shape in an account of its own; returns each item's label and reported causes. */
async function simulateMonth(ctx: TestContext, seed: number, shape: Shape) {
  const random = seededRandom(seed)
  const caller = await ctx.newCaller({ environment: 'sandbox' })
  const connection = await createConnection(ctx, caller)
  const items: BenchItem[] = []
  for (const label of CASES) {
    for (let index = 0; index < ITEMS_PER_CASE; index++) {
      const created = await createItem(ctx, caller, { name: `${label} spirit ${index} 1L`, size_ml: 1000, quantity: OPENING_STOCK, cost_per_unit: 20 })
      const posItemId = `${label}-${index}`
      await post(ctx, caller, `/v1/pos/connections/${connection.id}/mappings`, {
        pos_item_id: posItemId,
        inventory_item_id: created.id,
        conversion_factor: POUR_OZ,
        conversion_unit: 'oz',
      })
      items.push({ id: created.id, posItemId, label, meanPours: DEMAND[0] + random() * (DEMAND[1] - DEMAND[0]), stock: OPENING_STOCK })
    }
  }
  // The month starts at noon 29 days ago: counts at noon every 7 days, sales from 18:00 each day.
  const start = Math.floor(Date.now() / DAY_MS) * DAY_MS - 29 * DAY_MS + 12 * 3_600_000
  const countAll = (day: number) =>
    post(ctx, caller, '/v1/inventory/count', {
      location: 'main_bar',
      counted_by: 'bench',
      counted_at: dayAt(start, day, 0),
      items: items.map((item) => ({ item_id: item.id, quantity: Math.max(0, Math.round(item.stock * 10) / 10) })),
    })
  await countAll(0)
  for (let day = 0; day < WEEKS * 7; day++) {
    const lines: Record<string, unknown>[] = []
    for (const item of items) {
      const pours = poisson(random, item.meanPours)
      const hand = item.label === 'over_pouring' ? OVER_POUR : 1
      for (let pour = 0; pour < pours; pour++) item.stock -= POUR * hand * (1 + POUR_NOISE * normal(random))
      if (item.label === 'theft_or_breakage' && day === 2 * 7 + 3) item.stock -= THEFT_BOTTLES
      if (pours === 0) continue
      const sale = { location: 'main_bar', pos_item_id: item.posItemId, name: item.posItemId, unit_price: 9 }
      if (shape === 'line_a_day') lines.push({ ...sale, line_id: `${item.posItemId}-${day}`, quantity: pours, sold_at: dayAt(start, day, 8) })
      else for (let pour = 0; pour < pours; pour++) lines.push({ ...sale, line_id: `${item.posItemId}-${day}-${pour}`, quantity: 1, sold_at: dayAt(start, day, 6, pour * 5) })
    }
    if (lines.length > 0) await post(ctx, caller, '/v1/sales', { connection_id: connection.id, sales: lines })
    if ((day + 1) % 7 === 0) await countAll(day + 1)
  }
  const response = await ctx.request('GET', '/v1/analytics/variance', {
    key: caller.key,
    query: { date_from: dayAt(start, 0, 0).slice(0, 10), date_to: dayAt(start, WEEKS * 7, 0).slice(0, 10), threshold: String(THRESHOLD) },
  })
  if (response.statusCode !== 200) throw new Error(`variance: ${response.statusCode} ${response.body}`)
  const reported = new Map(
    (json(response).data.items as { inventory_item_id: string; variance_percentage: number; potential_causes: string[] }[]).map((entry) => [entry.inventory_item_id, entry]),
  )
  return items.map((item) => {
    const entry = reported.get(item.id)
    if (!entry) throw new Error(`item ${item.id} not reported`)
    return { label: item.label, shape, causes: entry.potential_causes, flagged: Math.abs(entry.variance_percentage) > THRESHOLD || entry.potential_causes.length > 0 }
  })
}

type Outcome = Awaited<ReturnType<typeof simulateMonth>>[number]

function share(part: number, whole: number): string {
  return `${(part / whole).toFixed(3)} (${part}/${whole})`
}

function summarize(outcomes: Outcome[], title: string): void {
  console.log(title)
  for (const label of CASES) {
    const of = outcomes.filter((outcome) => outcome.label === label)
    if (label === 'honest') {
      console.log(`  honest: flagged ${share(of.filter((outcome) => outcome.flagged).length, of.length)}`)
      continue
    }
    const top1 = of.filter((outcome) => outcome.causes[0] === label).length
    const top2 = of.filter((outcome) => outcome.causes.slice(0, 2).includes(label)).length
    const firsts = new Map<string, number>()
    for (const outcome of of) firsts.set(outcome.causes[0] ?? '(none)', (firsts.get(outcome.causes[0] ?? '(none)') ?? 0) + 1)
    console.log(`  ${label}: top-1 ${share(top1, of.length)}, top-2 ${share(top2, of.length)}; named first: ${[...firsts].map(([cause, n]) => `${cause} ${n}`).join(', ')}`)
  }
}

const seeds = (process.env.BENCH_SEEDS ?? '1,2,3').split(',').map(Number)
const shapes = (process.env.BENCH_SHAPES?.split(',') ?? SHAPES).filter((shape): shape is Shape => (SHAPES as readonly string[]).includes(shape))
const ctx = await createPosTestContext()
try {
  const outcomes: Outcome[] = []
  const started = performance.now()
  for (const seed of seeds) {
    for (const shape of shapes) {
      outcomes.push(...(await simulateMonth(ctx, seed, shape)))
      console.error(`seed ${seed} ${shape} done at ${((performance.now() - started) / 1000).toFixed(0)} s`)
    }
  }
  console.log(
    `${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}; seeds ${seeds.join(',')}; ${ITEMS_PER_CASE} items per case; ${cpus().length} × ${cpus()[0]?.model}; ${((performance.now() - started) / 1000).toFixed(0)} s`,
  )
  for (const shape of shapes)
    summarize(
      outcomes.filter((outcome) => outcome.shape === shape),
      `sales ${shape}:`,
    )
  summarize(outcomes, 'both shapes:')
} finally {
  await ctx.close()
}
