import { timingSafeEqual } from 'node:crypto'
import type { PushHeaders } from './adapter.js'

/** A header's value ('' when absent; the first when repeated). */
export function pushHeader(headers: PushHeaders, name: string): string {
  const header = headers[name]
  return (Array.isArray(header) ? header[0] : header) ?? ''
}

/** Whether a pushed signature or code equals the expected bytes, compared in constant time. */
export function signatureMatches(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected)
}
