import autocannon, { type Client } from 'autocannon'

/**
 * Runs one autocannon load in a child process (forked with IPC), so the load generator never shares the
 * server's event loop. (autocannon changes its behaviour inside worker threads, hence a process.)
 *
 * Requests come from a fixed list, built once: autocannon writes each request's prebuilt buffer, where a
 * `setupRequest` that picks each path made it rebuild every request (and capped the bench near 1,300 req/s
 * on this machine, issue 24). Every connection goes round the list on its own: from its first answer on,
 * connection `n` starts `n / connections` of the way round, so the 32 PUTs in flight are on different items
 * instead of queueing on one row lock together.
 */
export interface LoadSpec {
  url: string
  method: 'GET' | 'PUT'
  paths: string[]
  /** For PUT: bodies used in rotation. */
  bodies?: string[]
  headers: Record<string, string>
  connections: number
  durationSeconds?: number
  /** Stops after this many answers instead of after durationSeconds. */
  amount?: number
}

export interface LoadResult {
  requestsPerSecond: number
  p50: number
  p99: number
  errors: number
  non2xx: number
  total: number
  /** CPU time (user + system) this load generator spent per answered request, in µs. */
  generatorCpuMicrosPerRequest: number
}

interface FixedRequest {
  method: LoadSpec['method']
  path: string
  body?: string
}

/** The whole rotation as fixed requests: path `i` with body `i` (both lists repeat as needed). */
function requestList(spec: LoadSpec): FixedRequest[] {
  const length = spec.bodies ? lcm(spec.paths.length, spec.bodies.length) : spec.paths.length
  return Array.from({ length }, (_, index) => ({
    method: spec.method,
    path: spec.paths[index % spec.paths.length]!,
    ...(spec.bodies ? { body: spec.bodies[index % spec.bodies.length]! } : {}),
  }))
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
const lcm = (a: number, b: number) => (a / gcd(a, b)) * b

/** The list starting `offset` requests in. */
const rotated = <T>(list: T[], offset: number) => [...list.slice(offset), ...list.slice(0, offset)]

const spec = JSON.parse(process.env.BENCH_LOAD_SPEC ?? '{}') as LoadSpec
const requests = requestList(spec)
const cpuBefore = process.cpuUsage()
const instance = autocannon(
  {
    url: spec.url,
    connections: spec.connections,
    ...(spec.amount ? { amount: spec.amount } : { duration: spec.durationSeconds ?? 10 }),
    headers: { ...spec.headers, 'content-type': 'application/json' },
    requests,
  },
  (error, result) => {
    if (error) throw error
    const cpu = process.cpuUsage(cpuBefore)
    const outcome: LoadResult = {
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors,
      non2xx: result.non2xx,
      total: result.requests.total,
      generatorCpuMicrosPerRequest: (cpu.user + cpu.system) / result.requests.total,
    }
    process.send!(outcome, () => process.exit(0))
  },
)

// Each connection gets its own starting point at its first answer (autocannon gives no hook before).
const started = new Set<unknown>()
const spread = (client: Client) => {
  if (started.has(client)) return
  started.add(client)
  client.setRequests(rotated(requests, Math.floor(((started.size - 1) * requests.length) / spec.connections)))
  if (started.size === spec.connections) instance.off('response', spread)
}
instance.on('response', spread)
instance.on('error', (error) => {
  throw error
})
