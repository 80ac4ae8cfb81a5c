import { monotonicFactory } from 'ulid'

const nextUlid = monotonicFactory()

/**
 * An opaque identifier with a type prefix (`item_…`, `ord_…`): a ULID, so ids sort by creation time and
 * carry 80 random bits.
 */
export function newId(prefix: string): string {
  return `${prefix}_${nextUlid().toLowerCase()}`
}
