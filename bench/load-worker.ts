import autocannon from 'autocannon'

/**
 * Runs one autocannon load in a child process (forked with IPC), so the load generator never shares the
 * server's event loop. (autocannon changes its behaviour inside worker threads, hence a process.)
 * Requests rotate over the given paths and bodies.
 */
export interface LoadSpec {
  url: string
  method: 'GET' | 'PUT'
  paths: string[]
  /** For PUT: bodies used in rotation. */
  bodies?: string[]
  headers: Record<string, string>
  connections: number
  durationSeconds: number
}

export interface LoadResult {
  requestsPerSecond: number
  p50: number
  p99: number
  errors: number
  non2xx: number
  total: number
}

const spec = JSON.parse(process.env.BENCH_LOAD_SPEC ?? '{}') as LoadSpec
let counter = 0
const instance = autocannon(
  {
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationSeconds,
    headers: { ...spec.headers, 'content-type': 'application/json' },
    requests: [
      {
        method: spec.method,
        setupRequest: (request) => {
          const index = counter++
          const path = spec.paths[index % spec.paths.length]!
          const body = spec.bodies ? spec.bodies[index % spec.bodies.length] : undefined
          return { ...request, path, ...(body === undefined ? {} : { body }) }
        },
      },
    ],
  },
  (error, result) => {
    if (error) throw error
    const outcome: LoadResult = {
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors,
      non2xx: result.non2xx,
      total: result.requests.total,
    }
    process.send!(outcome, () => process.exit(0))
  },
)
instance.on('error', (error) => {
  throw error
})
