import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { initForecasting } from '../src/analytics/forecast/augurs.js'
import { forecastSeasonalNaive, forecastTrailingMean, mean, sum } from '../src/analytics/forecast/baseline.model.js'
import { forecastDemand, MIN_HISTORY_DAYS } from '../src/analytics/forecast/demand-forecast.js'
import { type LocationAdjustments, locationAdjustments, NO_LOCATION_ADJUSTMENTS } from '../src/analytics/forecast/location-pooling.js'
import { HISTORY_READ_DAYS } from '../src/analytics/forecast/forecast-refit.js'
import { totalErrorStdDev } from '../src/analytics/forecast/error-model.js'
import { applyHolidayFactors, holidayFactors, pastHolidays } from '../src/analytics/forecast/holiday-effects.js'
import { publicHolidays } from '../src/analytics/forecast/holidays.js'
import { safetyStock } from '../src/ordering/safety-stock.js'
import { referenceMs } from './machine-speed.js'
import { DAY_MS } from '../src/platform/zoned-time.js'

/**
 * Forecast accuracy on real sales, against R's forecast package (issue 22): a restaurant's POS line
 * items (BARSTOCK_REAL_SALES_CSV, the columns of `restaurant-1-orders.csv`: OrderDate `DD/MM/YYYY HH:MM`,
 * ItemName, Quantity). Items sold on at least MIN_SELLING_DAYS days from FIRST_COUNTED_DAY; the end is
 * the day before the file's last day (that day may be partial); ORIGINS origins ORIGIN_STEP days apart,
 * the last HORIZON days before the end. At each origin, every method sees only the days before it:
 * - model: forecastDemand as the refit calls it (the item's days from its first sale, at most
 *   HISTORY_READ_DAYS of them, at least MIN_HISTORY_DAYS), its public holidays scaled by the factors the
 *   refit would find in the restaurant's sale lines (CSV rows) per day before the origin, with the
 *   safety stock recommendations add;
 * - seasonal naive (the last week repeated) and the 28-day mean;
 * - R's forecast::ets and forecast::stlf on the last R_HISTORY_DAYS days as a ts of frequency 7, in one
 *   Rscript child process fed every series at once (Debian's r-cran-forecast); its answers are cached in
 *   the temp directory by a hash of its input, so a rerun after a model change costs only the model.
 * Errors: WAPE of the 14-day totals Σ|Σf − Σa| ÷ Σa, daily WAPE Σ|f − a| ÷ Σa, bias (Σf − Σa) ÷ Σa, all
 * pooled over the item-periods; for all 12 origins, the first 6 (where changes are chosen) and the last
 * 6 (reported apart), for intermittent items (sold on under half of the days) and the rest. Then the
 * safety stock's achieved service level, and the public holidays' effect in the history and on the model.
 * Run by hand: BARSTOCK_REAL_SALES_CSV=/work/data/restaurant-1-orders.csv npm run bench:forecast-real
 */

const FIRST_COUNTED_DAY = '2016-01-01'
const MIN_SELLING_DAYS = 200
const ORIGINS = 12
const ORIGIN_STEP = 28
const HORIZON = 14
const R_HISTORY_DAYS = 365
/** The restaurant is in London: the country's public holidays, as the service lists them for a location in GB. */
const COUNTRY = 'GB'

type Method = 'model' | 'seasonal_naive' | 'mean_28' | 'r_ets' | 'r_stlf'
const METHODS: readonly Method[] = ['model', 'seasonal_naive', 'mean_28', 'r_ets', 'r_stlf']
const R_METHODS = ['r_ets', 'r_stlf'] as const

interface Sales {
  /** Day 0 of every series. */
  firstDay: string
  /** The last day scored (the day before the file's last). */
  endIndex: number
  /** Units per day from firstDay to endIndex, per item. */
  items: Map<string, number[]>
  /** Sale lines (CSV rows, every item) per day from firstDay to endIndex: what the refit measures holidays by. */
  lines: number[]
}

/** One item at one origin: what sold in the 14 days and what each method forecast for them. */
interface ItemPeriod {
  item: string
  /** 0 for the earliest origin. */
  originNumber: number
  intermittent: boolean
  actual: number[]
  forecasts: Partial<Record<Method, number[]>>
  /** The model's forecast before its holiday factors. */
  unscaled: number[]
  /** The model's safety stock for the 14 days, as recommendations add it. */
  safetyStock: number
}

const dayIndex = (day: string, firstDay: string) => Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${firstDay}T00:00:00Z`)) / DAY_MS)
const dateOf = (index: number, firstDay: string) => new Date(Date.parse(`${firstDay}T00:00:00Z`) + index * DAY_MS).toISOString().slice(0, 10)

function readSales(path: string): Sales {
  const rows = parse(readFileSync(path), { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>
  const lines = rows.map((row) => {
    const [day, month, year] = (row.OrderDate ?? '').slice(0, 10).split('/')
    return { day: `${year}-${month}-${day}`, item: row.ItemName ?? '', quantity: Number(row.Quantity) }
  })
  const days = lines.map((line) => line.day).sort()
  const firstDay = days[0] as string
  const endIndex = dayIndex(days[days.length - 1] as string, firstDay) - 1
  const items = new Map<string, number[]>()
  const lineCounts = new Array<number>(endIndex + 1).fill(0)
  for (const line of lines) {
    const index = dayIndex(line.day, firstDay)
    if (index > endIndex) continue
    lineCounts[index] = (lineCounts[index] ?? 0) + 1
    const series = items.get(line.item) ?? new Array<number>(endIndex + 1).fill(0)
    series[index] = (series[index] ?? 0) + line.quantity
    items.set(line.item, series)
  }
  return { firstDay, endIndex, items, lines: lineCounts }
}

function sellingDays(series: readonly number[], from: number): number {
  return series.slice(from).filter((value) => value > 0).length
}

/** The first origin's index first; the last leaves HORIZON days up to the end. */
function originsOf(sales: Sales): number[] {
  const last = sales.endIndex + 1 - HORIZON
  return Array.from({ length: ORIGINS }, (_, number) => last - (ORIGINS - 1 - number) * ORIGIN_STEP)
}

/** The restaurant's holiday factors as the refit would find them at an origin: its sale lines on the days before it. */
function holidayFactorsAt(sales: Sales, origin: number): Map<string, number> {
  const occurrences = pastHolidays(COUNTRY, dateOf(origin - 1, sales.firstDay))
  return holidayFactors(occurrences, (day) => sales.lines[dayIndex(day, sales.firstDay)] ?? 0)
}

/** What the refit reads of an item before an origin: from its first sale, at most HISTORY_READ_DAYS days; null under MIN_HISTORY_DAYS. */
function refitHistory(series: readonly number[], origin: number): number[] | null {
  const firstSale = series.findIndex((value) => value > 0)
  const history = series.slice(Math.max(firstSale, origin - HISTORY_READ_DAYS), origin)
  return firstSale < 0 || firstSale >= origin || history.length < MIN_HISTORY_DAYS ? null : history
}

/** The restaurant's adjustments as the refit would compute them at an origin: from every item it sold (all 248, not only the scored ones). */
function adjustmentsAt(sales: Sales, origin: number): LocationAdjustments {
  return locationAdjustments([...sales.items.values()].map((series) => refitHistory(series, origin)).filter((history) => history !== null))
}

/** The model as the refit calls it: the item's refit history, its location's adjustments, holidays scaled. */
function modelForecast(series: readonly number[], origin: number, firstDay: string, factors: ReadonlyMap<string, number>, location: LocationAdjustments) {
  const history = refitHistory(series, origin)
  if (history === null) return null
  const forecast = forecastDemand(history, { smoothingAlpha: location.smoothingAlpha })
  // The refit scales by the location's trend factor before the holidays; `unscaled` is before the holidays.
  const unscaled = forecast.daily.slice(0, HORIZON).map((value) => value * location.trendFactor)
  const daily = applyHolidayFactors(unscaled, dateOf(origin, firstDay), COUNTRY, factors).daily
  return {
    daily,
    unscaled,
    // As recommendations compute it for a 14-day horizon.
    safetyStock: safetyStock(sum(daily), totalErrorStdDev(forecast.dailyErrorStdDev, forecast.horizonErrorStdDev, HORIZON)),
  }
}

const R_SCRIPT = `
suppressMessages(library(forecast))
args <- commandArgs(TRUE)
h <- as.integer(args[3])
lines <- readLines(args[1])
out <- file(args[2], "w")
fallbacks <- 0
fallback <- function(y) { fallbacks <<- fallbacks + 1; rep(mean(tail(y, 28)), h) }
for (i in seq_along(lines)) {
  parts <- strsplit(lines[i], ",", fixed = TRUE)[[1]]
  y <- ts(as.numeric(strsplit(parts[2], " ", fixed = TRUE)[[1]]), frequency = 7)
  e <- tryCatch(as.numeric(forecast(ets(y), h = h)$mean), error = function(err) fallback(y))
  s <- tryCatch(as.numeric(stlf(y, h = h)$mean), error = function(err) fallback(y))
  writeLines(paste(parts[1], "r_ets", paste(pmax(e, 0), collapse = " "), sep = ","), out)
  writeLines(paste(parts[1], "r_stlf", paste(pmax(s, 0), collapse = " "), sep = ","), out)
  if (i %% 100 == 0) message(i, " of ", length(lines))
}
close(out)
message("R fallbacks to the 28-day mean: ", fallbacks)
`

/**
 * R's ets and stlf for every task (id → its last R_HISTORY_DAYS days), in one Rscript process; cached in
 * the temp directory by a hash of the input and the script.
 */
async function forecastInR(tasks: Map<string, number[]>): Promise<Map<string, number[]>> {
  const input = [...tasks].map(([id, history]) => `${id},${history.join(' ')}`).join('\n')
  const hash = createHash('sha256').update(R_SCRIPT).update(input).digest('hex').slice(0, 16)
  const outputPath = join(tmpdir(), `barstock-forecast-real-r-${hash}.csv`)
  if (!existsSync(outputPath)) {
    const inputPath = join(tmpdir(), `barstock-forecast-real-r-${hash}.input.csv`)
    const scriptPath = join(tmpdir(), `barstock-forecast-real-${hash}.R`)
    writeFileSync(inputPath, `${input}\n`)
    writeFileSync(scriptPath, R_SCRIPT)
    await new Promise<void>((resolve, reject) => {
      const child = spawn('Rscript', [scriptPath, inputPath, `${outputPath}.partial`, String(HORIZON)], { stdio: ['ignore', 'inherit', 'inherit'] })
      child.on('error', reject)
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`Rscript exited with ${code}`))))
    })
    writeFileSync(outputPath, readFileSync(`${outputPath}.partial`))
  } else {
    console.error(`R forecasts read from ${outputPath}`)
  }
  const forecasts = new Map<string, number[]>()
  for (const line of readFileSync(outputPath, 'utf8').split('\n')) {
    const [id, method, values] = line.split(',')
    if (id && method && values) forecasts.set(`${id}/${method}`, values.split(' ').map(Number))
  }
  return forecasts
}

interface Scores {
  totals: number
  daily: number
  bias: number
}

function scoresOf(periods: readonly ItemPeriod[], method: Method): Scores {
  let totalError = 0
  let dailyError = 0
  let forecastSum = 0
  let actualSum = 0
  for (const period of periods) {
    const forecast = period.forecasts[method] ?? []
    const actual = sum(period.actual)
    const total = sum(forecast)
    totalError += Math.abs(total - actual)
    dailyError += sum(period.actual.map((value, day) => Math.abs((forecast[day] ?? 0) - value)))
    forecastSum += total
    actualSum += actual
  }
  return { totals: totalError / actualSum, daily: dailyError / actualSum, bias: (forecastSum - actualSum) / actualSum }
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`

/** The slices the tables show: origin sets × item groups. */
function slices(periods: readonly ItemPeriod[]) {
  const origins = [
    { label: 'all 12 origins', keep: () => true },
    { label: 'first 6', keep: (period: ItemPeriod) => period.originNumber < ORIGINS / 2 },
    { label: 'last 6', keep: (period: ItemPeriod) => period.originNumber >= ORIGINS / 2 },
  ]
  const groups = [
    { label: 'all items', keep: () => true },
    { label: 'intermittent', keep: (period: ItemPeriod) => period.intermittent },
    { label: 'regular', keep: (period: ItemPeriod) => !period.intermittent },
  ]
  return groups.flatMap((group) =>
    origins.map((origin) => {
      const kept = periods.filter((period) => group.keep(period) && origin.keep(period))
      return { label: `${group.label}, ${origin.label}`, periods: kept, items: new Set(kept.map((period) => period.item)).size }
    }),
  )
}

function printErrorTable(periods: readonly ItemPeriod[], measure: keyof Scores, title: string): void {
  console.log(`\n${title}\n`)
  console.log('| slice | items | item-periods | model | seasonal naive | 28-day mean | R ets | R stlf | model ÷ best of R |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const slice of slices(periods)) {
    const scores = Object.fromEntries(METHODS.map((method) => [method, scoresOf(slice.periods, method)[measure]])) as Record<Method, number>
    const bestR = measure === 'bias' ? null : Math.min(scores.r_ets, scores.r_stlf)
    const ratio = bestR === null ? '–' : (scores.model / bestR).toFixed(3)
    console.log(`| ${slice.label} | ${slice.items} | ${slice.periods.length} | ${METHODS.map((method) => percent(scores[method])).join(' | ')} | ${ratio} |`)
  }
}

/** Share of item-periods whose 14-day demand the forecast plus its safety stock covered, and what was left. */
function printSafetyStock(periods: readonly ItemPeriod[]): void {
  console.log(
    '\nSafety stock: covered = share of item-periods whose 14-day actual total ≤ model forecast total + safety stock (stated level 95 %); left over = mean of max(0, forecast + safety stock − actual), in units and ÷ the mean actual total\n',
  )
  console.log('| slice | item-periods | covered | left over (units) | left over ÷ mean actual | safety stock ÷ forecast |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const slice of slices(periods)) {
    const covered = slice.periods.filter((period) => sum(period.actual) <= sum(period.forecasts.model ?? []) + period.safetyStock).length
    const leftOver = slice.periods.map((period) => Math.max(0, sum(period.forecasts.model ?? []) + period.safetyStock - sum(period.actual)))
    const meanActual = mean(slice.periods.map((period) => sum(period.actual)))
    const safetyShare = sum(slice.periods.map((period) => period.safetyStock)) / sum(slice.periods.map((period) => sum(period.forecasts.model ?? [])))
    console.log(
      `| ${slice.label} | ${slice.periods.length} | ${percent(covered / slice.periods.length)} | ${mean(leftOver).toFixed(2)} | ${percent(mean(leftOver) / meanActual)} | ${percent(safetyShare)} |`,
    )
  }
}

/** GB public holidays between the two days (YYYY-MM-DD, both included), by date. */
function holidaysByDate(from: string, to: string): Map<string, string> {
  return new Map(publicHolidays(COUNTRY, from, to).map((holiday) => [holiday.date, holiday.name]))
}

/**
 * The holiday effect in the history: each public holiday's sales (all items) ÷ the mean of the same
 * weekday 1 to 4 weeks before and after (days without any sale left out), and the model on the holiday
 * days inside the scored horizons: Σ actual ÷ Σ forecast on them against the other days.
 */
function printHolidays(sales: Sales, periods: readonly ItemPeriod[], origins: readonly number[]): void {
  const total = (index: number) => sum([...sales.items.values()].map((series) => series[index] ?? 0))
  const holidays = holidaysByDate(FIRST_COUNTED_DAY, dateOf(sales.endIndex, sales.firstDay))
  console.log(`\nPublic holidays (${COUNTRY}) in the history: the day's sales of all items ÷ the mean of the same weekday 1–4 weeks either side\n`)
  console.log('| day | holiday | sales | usual | ratio |')
  console.log('|---|---|---:|---:|---:|')
  for (const [day, name] of holidays) {
    const index = dayIndex(day, sales.firstDay)
    const around = [-28, -21, -14, -7, 7, 14, 21, 28].map((offset) => total(index + offset)).filter((value) => value > 0)
    const usual = mean(around)
    console.log(`| ${day} | ${name} | ${total(index)} | ${usual.toFixed(0)} | ${usual > 0 ? (total(index) / usual).toFixed(2) : '–'} |`)
  }
  const onHoliday = { actual: 0, forecast: 0, unscaled: 0, error: 0, unscaledError: 0 }
  const otherDays = { actual: 0, forecast: 0, unscaled: 0, error: 0, unscaledError: 0 }
  for (const period of periods) {
    period.actual.forEach((actual, day) => {
      const into = holidays.has(dateOf((origins[period.originNumber] ?? 0) + day, sales.firstDay)) ? onHoliday : otherDays
      const forecast = period.forecasts.model?.[day] ?? 0
      const unscaled = period.unscaled[day] ?? 0
      into.actual += actual
      into.forecast += forecast
      into.unscaled += unscaled
      into.error += Math.abs(forecast - actual)
      into.unscaledError += Math.abs(unscaled - actual)
    })
  }
  const inHorizons = [...holidays.keys()].filter((day) =>
    origins.some((origin) => {
      const index = dayIndex(day, sales.firstDay)
      return index >= origin && index < origin + HORIZON
    }),
  )
  console.log(
    `\nIn the scored horizons (${inHorizons.join(', ') || 'none'}): Σ actual ÷ Σ model forecast ${(onHoliday.actual / onHoliday.forecast).toFixed(2)} on the holidays (${(onHoliday.actual / onHoliday.unscaled).toFixed(2)} before the holiday factors), ${(otherDays.actual / otherDays.forecast).toFixed(2)} on the other days`,
  )
  console.log(
    `Daily WAPE on the holidays ${percent(onHoliday.error / onHoliday.actual)} (${percent(onHoliday.unscaledError / onHoliday.actual)} before the holiday factors), on the other days ${percent(otherDays.error / otherDays.actual)} (${percent(otherDays.unscaledError / otherDays.actual)})`,
  )
  console.log('\nHoliday factors applied at the origins whose horizon holds a holiday (from the sale lines before the origin)\n')
  console.log('| origin | holiday | factor |')
  console.log('|---|---|---:|')
  for (const origin of origins) {
    const factors = holidayFactorsAt(sales, origin)
    for (const [day, name] of holidays) {
      const index = dayIndex(day, sales.firstDay)
      if (index >= origin && index < origin + HORIZON)
        console.log(`| ${dateOf(origin, sales.firstDay)} | ${day} ${name} | ${factors.has(name) ? factors.get(name)?.toFixed(2) : 'none (ordinary day)'} |`)
    }
  }
}

async function main(): Promise<void> {
  const path = process.env.BARSTOCK_REAL_SALES_CSV
  if (!path || !existsSync(path)) {
    console.log('bench:forecast-real skipped: set BARSTOCK_REAL_SALES_CSV to the path of restaurant-1-orders.csv (see docs/forecast-accuracy.md for where it comes from)')
    return
  }
  const sales = readSales(path)
  const from = dayIndex(FIRST_COUNTED_DAY, sales.firstDay)
  const countedDays = sales.endIndex + 1 - from
  const items = [...sales.items].filter(([, series]) => sellingDays(series, from) >= MIN_SELLING_DAYS).sort(([a], [b]) => a.localeCompare(b))
  const origins = originsOf(sales)
  console.log(
    `# Forecasts on real sales: ${path.split('/').pop()}, ${sales.items.size} items, ${items.length} sold on ≥ ${MIN_SELLING_DAYS} days from ${FIRST_COUNTED_DAY} to ${dateOf(sales.endIndex, sales.firstDay)}`,
  )
  console.log(
    `${ORIGINS} origins ${ORIGIN_STEP} days apart, ${dateOf(origins[0] ?? 0, sales.firstDay)} to ${dateOf(origins[ORIGINS - 1] ?? 0, sales.firstDay)}, ${HORIZON}-day horizon; intermittent = sold on under half of the ${countedDays} days`,
  )

  const rTasks = new Map<string, number[]>()
  items.forEach(([, series], itemNumber) => {
    origins.forEach((origin, originNumber) => rTasks.set(`${itemNumber}_${originNumber}`, series.slice(Math.max(0, origin - R_HISTORY_DAYS), origin)))
  })
  const rStarted = performance.now()
  const rForecasts = forecastInR(rTasks)

  initForecasting()
  const reference = referenceMs()
  const modelStarted = performance.now()
  const cpuStarted = process.cpuUsage()
  const periods: ItemPeriod[] = []
  let unavailable = 0
  const factorsAt = origins.map((origin) => holidayFactorsAt(sales, origin))
  const adjustments = origins.map((origin) => adjustmentsAt(sales, origin))
  items.forEach(([item, series]) => {
    const intermittent = sellingDays(series, from) < countedDays / 2
    origins.forEach((origin, originNumber) => {
      const history = series.slice(0, origin)
      const model = modelForecast(series, origin, sales.firstDay, factorsAt[originNumber] ?? new Map(), adjustments[originNumber] ?? NO_LOCATION_ADJUSTMENTS)
      if (model === null) unavailable++
      periods.push({
        item,
        originNumber,
        intermittent,
        actual: series.slice(origin, origin + HORIZON),
        forecasts: {
          // forecast_unavailable: a bar without a forecast orders nothing from it.
          model: model?.daily ?? new Array<number>(HORIZON).fill(0),
          seasonal_naive: forecastSeasonalNaive(history, HORIZON),
          mean_28: forecastTrailingMean(history, HORIZON),
        },
        unscaled: model?.unscaled ?? new Array<number>(HORIZON).fill(0),
        safetyStock: model?.safetyStock ?? 0,
      })
    })
  })
  const modelCpu = process.cpuUsage(cpuStarted)
  const modelMs = performance.now() - modelStarted
  const fromR = await rForecasts
  const rSeconds = (performance.now() - rStarted) / 1000
  periods.forEach((period) => {
    const itemNumber = items.findIndex(([name]) => name === period.item)
    for (const method of R_METHODS) period.forecasts[method] = fromR.get(`${itemNumber}_${period.originNumber}/${method}`)
  })
  console.log(
    `${periods.length} item-periods, ${periods.filter((period) => period.intermittent).length} of them intermittent; the model had no forecast (under ${MIN_HISTORY_DAYS} days of history) for ${unavailable}`,
  )
  printErrorTable(periods, 'totals', 'WAPE of the 14-day totals, Σ|Σ forecast − Σ actual| ÷ Σ actual over the item-periods')
  printErrorTable(periods, 'daily', 'Daily WAPE, Σ|forecast − actual| ÷ Σ actual over every held-out day')
  printErrorTable(periods, 'bias', 'Bias of the 14-day totals, (Σ forecast − Σ actual) ÷ Σ actual')
  printSafetyStock(periods)
  console.log("\nThe location's adjustments at each origin, from all its items (locationAdjustments)\n")
  console.log('| origin | pooled smoothing weight | trend factor |')
  console.log('|---|---:|---:|')
  origins.forEach((origin, number) =>
    console.log(`| ${dateOf(origin, sales.firstDay)} | ${adjustments[number]?.smoothingAlpha} | ${adjustments[number]?.trendFactor.toFixed(3)} |`),
  )
  printHolidays(sales, periods, origins)
  console.log(
    `\nmodel: ${(modelMs / 1000).toFixed(1)} s wall, ${((modelCpu.user + modelCpu.system) / 1e6).toFixed(1)} s CPU for ${periods.length} fits (machine-speed reference ${reference.toFixed(0)} ms, bench/machine-speed.ts); R (or its cache): ${rSeconds.toFixed(1)} s wall`,
  )
  console.log(
    `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}, node ${process.version}`,
  )
}

await main()
