import type { PosSaleLine, SalesListingProgress } from './adapter.js'

/**
 * How every adapter that resumes keeps where its sales listing got to (SalesListingProgress in
 * adapter.ts is what the core sees). A listing is made of named queries (Revel lists orders, then
 * returns, then voids; Square lists orders; SpotOn its day slices; Simphony its business dates); each
 * query's progress is the adapter's own JSON value, or 'finished'. The whole map is the position the
 * core stores: a listing given it back (restored by the next run) starts each query where it got to
 * and skips the ones it finished.
 *
 * The rule every adapter keeps: a query records its progress only after the caller has taken the page
 * it follows (the generator was asked for the next one), and only a progress from which listing again
 * misses nothing the pages not yet read would have brought.
 */

/** Where one query got to: the adapter's own value, or finished. */
export type QueryProgress<P> = P | 'finished'

export class ListingProgress<P> {
  private readonly queries: Map<string, QueryProgress<P>>
  private readonly onRecord: ((position: string) => void) | undefined

  /**
   * `isProgress` checks a stored value before it is trusted: a position this version did not write (or
   * one of another vendor) is ignored, and the listing starts over.
   */
  constructor(
    private readonly isProgress: (value: unknown) => value is P,
    listing?: SalesListingProgress,
  ) {
    this.queries = new Map(listing?.from ? this.read(listing.from) : [])
    this.onRecord = listing?.reached
  }

  /** Where the query starts: undefined at its beginning. */
  startOf(key: string): QueryProgress<P> | undefined {
    return this.queries.get(key)
  }

  /** The query got this far (the caller has taken everything before); the core hears the new position. */
  record(key: string, progress: QueryProgress<P>): void {
    this.queries.set(key, progress)
    this.onRecord?.(this.toString())
  }

  /** Drops the progress of the queries matching: they will not be listed again in this window. */
  forget(matches: (key: string) => boolean): void {
    for (const key of [...this.queries.keys()]) if (matches(key)) this.queries.delete(key)
  }

  toString(): string {
    return JSON.stringify([...this.queries])
  }

  private read(position: string): [string, QueryProgress<P>][] {
    try {
      const entries: unknown = JSON.parse(position)
      const valid =
        Array.isArray(entries) &&
        entries.every((entry) => Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string' && (entry[1] === 'finished' || this.isProgress(entry[1])))
      return valid ? (entries as [string, QueryProgress<P>][]) : []
    } catch {
      return []
    }
  }
}

/** Where a listing of fixed parts got to: the key of the first part not read yet. */
interface PartPosition {
  next: string
}

const PARTS_QUERY = 'parts'

function isPartPosition(value: unknown): value is PartPosition {
  return typeof (value as Partial<PartPosition> | null)?.next === 'string'
}

/**
 * A listing cut into fixed parts, each read by one request answered whole (SpotOn's day slices,
 * Simphony's business dates), that resumes at the first part it had not read. Sound when the parts of a
 * window are the same whenever it is listed and what a part answers does not depend on the parts read
 * before it. A stored key that names none of the parts starts the listing over.
 */
export async function* listByParts<Part>(
  listing: SalesListingProgress | undefined,
  parts: readonly Part[],
  keyOf: (part: Part) => string,
  read: (part: Part) => Promise<PosSaleLine[]>,
): AsyncIterable<PosSaleLine[]> {
  const progress = new ListingProgress(isPartPosition, listing)
  const start = progress.startOf(PARTS_QUERY)
  if (start === 'finished') return
  const first = start
    ? Math.max(
        0,
        parts.findIndex((part) => keyOf(part) === start.next),
      )
    : 0
  for (let index = first; index < parts.length; index++) {
    const lines = await read(parts[index] as Part)
    if (lines.length > 0) yield lines
    const next = parts[index + 1]
    progress.record(PARTS_QUERY, next === undefined ? 'finished' : { next: keyOf(next) })
  }
}
