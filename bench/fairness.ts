import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import { runCli, tempDataDir } from '../test/helpers/server-process.js'
import { startQuietServer } from './processes.js'

/**
 * Fairness benchmark: `barstock serve` on PGlite in a process of its own (as `npm start` runs it, logging at warn), and
 * FAIR_CLIENTS (default 32) clients here, each with one keep-alive connection of its own, sending its
 * requests one after another for FAIR_SECONDS (default 6). It reports how many requests each client got
 * answered, the latency percentiles over all requests, each client's wait for its first answer, and the
 * server's event-loop delay over the run (from its /metrics). FAIR_SCENARIO: `get` (GET an item), `put`
 * (PUT its quantity, a transaction) or `mix` (default: clients alternate).
 * Run: npx tsc -p . && node dist/bench/fairness.js
 */

const CLIENTS = Number(process.env.FAIR_CLIENTS ?? 32)
const SECONDS = Number(process.env.FAIR_SECONDS ?? 6)
const SCENARIO = process.env.FAIR_SCENARIO ?? 'mix'
const METRICS_TOKEN = 'fairness-bench-metrics-token'

interface Answer {
  status: number
  body: string
  headers: Record<string, string | string[] | undefined>
}

function send(url: string, agent: Agent | undefined, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(new URL(path, url), { method, agent, headers }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text, headers: response.headers }))
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

interface ClientOutcome {
  answered: number
  rejected: number
  firstAnswerMs: number
  latenciesMs: number[]
}

/** One client: its own connection, one request at a time until the deadline. */
async function runClient(url: string, key: string, itemId: string, writes: boolean, deadline: number, start: number): Promise<ClientOutcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const headers = { 'x-api-key': key, 'content-type': 'application/json' }
  const outcome: ClientOutcome = { answered: 0, rejected: 0, firstAnswerMs: Number.NaN, latenciesMs: [] }
  try {
    for (let index = 0; performance.now() < deadline; index++) {
      const sent = performance.now()
      const answer = writes
        ? await send(url, agent, 'PUT', `/v1/inventory/items/${itemId}`, headers, JSON.stringify({ quantity: 10 + (index % 50) }))
        : await send(url, agent, 'GET', `/v1/inventory/items/${itemId}`, headers)
      const now = performance.now()
      if (Number.isNaN(outcome.firstAnswerMs)) outcome.firstAnswerMs = now - start
      outcome.latenciesMs.push(now - sent)
      if (answer.status < 300) outcome.answered++
      else outcome.rejected++
    }
  } finally {
    agent.destroy()
  }
  return outcome
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN
}

function metricValue(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)
  return match ? Number(match[1]) * 1000 : Number.NaN
}

async function main(): Promise<void> {
  const data = tempDataDir()
  const env = {
    BARSTOCK_DATA_DIR: data.dir,
    BARSTOCK_LOG_LEVEL: 'warn',
    BARSTOCK_RATE_LIMIT_PRODUCTION: '10000000',
    BARSTOCK_METRICS_TOKEN: METRICS_TOKEN,
  }
  const server = await startQuietServer(env).catch((error: unknown) => {
    data.cleanup()
    throw error
  })
  try {
    const created = await runCli(['keys', 'create', '--name', 'fairness', '--permissions', '*', '--json'], env)
    const key = (JSON.parse(created.stdout) as { key: string }).key
    const item = await send(
      server.url,
      undefined,
      'POST',
      '/v1/inventory/items',
      { 'x-api-key': key, 'content-type': 'application/json' },
      JSON.stringify({ name: 'Fairness vodka', sku: 'FAIR-1', category: 'spirits', quantity: 10, unit: 'bottle', location: 'main_bar' }),
    )
    const itemId = (JSON.parse(item.body) as { data: { id: string } }).data.id
    const scrape = () => send(server.url, undefined, 'GET', '/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })
    await scrape() // prom-client resets its event-loop histogram at each scrape: the next one covers the run
    const start = performance.now()
    const deadline = start + SECONDS * 1000
    const outcomes = await Promise.all(
      Array.from({ length: CLIENTS }, (_, index) => runClient(server.url, key, itemId, SCENARIO === 'put' || (SCENARIO === 'mix' && index % 2 === 1), deadline, start)),
    )
    const metrics = (await scrape()).body
    const counts = outcomes.map((outcome) => outcome.answered).sort((a, b) => a - b)
    const latencies = outcomes.flatMap((outcome) => outcome.latenciesMs).sort((a, b) => a - b)
    const firstAnswers = outcomes.map((outcome) => outcome.firstAnswerMs).sort((a, b) => a - b)
    const report = {
      scenario: SCENARIO,
      clients: CLIENTS,
      seconds: SECONDS,
      answered: counts.reduce((sum, count) => sum + count, 0),
      rejected: outcomes.reduce((sum, outcome) => sum + outcome.rejected, 0),
      perClient: { min: counts[0], median: percentile(counts, 0.5), max: counts.at(-1) },
      latencyMs: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) },
      firstAnswerMs: { min: firstAnswers[0], max: firstAnswers.at(-1) },
      serverEventLoopDelayMs: {
        p50: metricValue(metrics, 'nodejs_eventloop_lag_p50_seconds'),
        p99: metricValue(metrics, 'nodejs_eventloop_lag_p99_seconds'),
        max: metricValue(metrics, 'nodejs_eventloop_lag_max_seconds'),
      },
    }
    console.log(JSON.stringify(report, (_key, value: unknown) => (typeof value === 'number' ? Math.round(value * 10) / 10 : value), 2))
  } finally {
    await server.stop()
    data.cleanup()
  }
}

await main()
