/**
 * The write load of bench/failover.ts, in a process of its own (forked with IPC): `writers` loops each
 * POST a new item, one at a time, until told to stop, and send back every request's times, status, error
 * code, Retry-After and, when acknowledged (201), the item's id. A request gets `abortMs` before it counts
 * as a hang.
 */

export interface WriterSpec {
  url: string
  key: string
  writers: number
  abortMs: number
}

export interface WriteRecord {
  /** Milliseconds since the epoch. */
  startedAt: number
  endedAt: number
  /** 0: no answer (aborted after abortMs, or the connection failed). */
  status: number
  code: string | undefined
  retryAfter: string | undefined
  itemId: string | undefined
}

const PAUSE_AFTER_REFUSAL_MS = 100

async function write(spec: WriterSpec, sku: string): Promise<WriteRecord> {
  const startedAt = Date.now()
  try {
    const response = await fetch(`${spec.url}/v1/inventory/items`, {
      method: 'POST',
      headers: { 'x-api-key': spec.key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Failover ${sku}`, sku, category: 'beer', quantity: 24, unit: 'bottle', location: 'main_bar' }),
      signal: AbortSignal.timeout(spec.abortMs),
    })
    const body = (await response.json()) as { data?: { id: string }; error?: { code: string } }
    return {
      startedAt,
      endedAt: Date.now(),
      status: response.status,
      code: body.error?.code,
      retryAfter: response.headers.get('retry-after') ?? undefined,
      itemId: response.status === 201 ? body.data?.id : undefined,
    }
  } catch (error) {
    return { startedAt, endedAt: Date.now(), status: 0, code: (error as Error).name, retryAfter: undefined, itemId: undefined }
  }
}

async function writeUntilStopped(spec: WriterSpec, writer: number, stopped: () => boolean, records: WriteRecord[]): Promise<void> {
  for (let sequence = 0; !stopped(); sequence++) {
    const record = await write(spec, `FO-${process.pid}-${writer}-${sequence}`)
    records.push(record)
    // A client told to retry shortly does not hammer: a short pause, not the full Retry-After, so the
    // moment the service recovers shows in the figures.
    if (record.status !== 201) await new Promise((resolve) => setTimeout(resolve, PAUSE_AFTER_REFUSAL_MS))
  }
}

process.once('message', (spec: WriterSpec) => {
  const records: WriteRecord[] = []
  let stop = false
  process.once('message', () => {
    stop = true
  })
  const writers = Array.from({ length: spec.writers }, (_, writer) => writeUntilStopped(spec, writer, () => stop, records))
  void Promise.all(writers).then(() => process.send?.(records, () => process.exit(0)))
})
