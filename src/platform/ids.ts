import { randomFillSync } from 'node:crypto'
import { monotonicFactory } from 'ulid'

const randomBytes = Buffer.alloc(4096)
let nextByte = randomBytes.length

/**
 * ulid's own source of randomness asks the system for one byte per character (16 calls an id, each a
 * typed-array fill): about 5 % of a GET's CPU when every request gets an id. The same cryptographic
 * bytes, drawn 4 KiB at a time.
 */
function pooledRandom(): number {
  if (nextByte === randomBytes.length) {
    randomFillSync(randomBytes)
    nextByte = 0
  }
  return randomBytes[nextByte++]! / 256
}

const nextUlid = monotonicFactory(pooledRandom)

/**
 * An opaque identifier with a type prefix (`item_…`, `ord_…`): a ULID, so ids sort by creation time and
 * carry 80 random bits.
 */
export function newId(prefix: string): string {
  return `${prefix}_${nextUlid().toLowerCase()}`
}
