/** A cached answer: its serialized `data` and the snapshot taken before its first read. */
export interface CachedAnswer {
  /** The answer's `data` as the envelope's serializer wrote it (UTF-8). */
  data: Buffer
  /** pg_current_snapshot() before the answer's first read (tenant-changes.ts). */
  snapshot: string
  /** When that snapshot was taken (Date.now()). */
  takenAt: number
}

/** What an entry holds besides its data's bytes: key, snapshot, the Map's and the object's own. */
const ENTRY_OVERHEAD_BYTES = 200

function entryBytes(key: string, answer: CachedAnswer): number {
  return answer.data.length + 2 * (key.length + answer.snapshot.length) + ENTRY_OVERHEAD_BYTES
}

/**
 * Answers by key, least recently used first out once their bytes pass `maxBytes` (BARSTOCK_REPORT_CACHE_MB).
 * A Map keeps insertion order: an entry read is moved to its end, so its first key is the least recently used.
 */
export class AnswerCache {
  readonly #entries = new Map<string, CachedAnswer>()
  #bytes = 0

  constructor(readonly maxBytes: number) {}

  get(key: string): CachedAnswer | undefined {
    const answer = this.#entries.get(key)
    if (answer) {
      this.#entries.delete(key)
      this.#entries.set(key, answer)
    }
    return answer
  }

  /** Keeps `answer` under `key` (replacing the one there); one larger than the whole cache is not kept. */
  set(key: string, answer: CachedAnswer): void {
    this.delete(key)
    const bytes = entryBytes(key, answer)
    if (bytes > this.maxBytes) return
    this.#entries.set(key, answer)
    this.#bytes += bytes
    for (const [oldest, evicted] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break
      this.#entries.delete(oldest)
      this.#bytes -= entryBytes(oldest, evicted)
    }
  }

  delete(key: string): void {
    const answer = this.#entries.get(key)
    if (!answer) return
    this.#entries.delete(key)
    this.#bytes -= entryBytes(key, answer)
  }
}
