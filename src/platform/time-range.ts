/**
 * The earliest start and the latest end of `spans` (at least one): the one range that covers them all.
 * Given beside each span's own bounds as constants, it lets the planner prune monthly partitions when it
 * plans, where bounds read from arrays prune them only per probe.
 */
export function outerRange<Span>(spans: readonly Span[], start: (span: Span) => Date, end: (span: Span) => Date): { start: Date; end: Date } {
  let first = Number.POSITIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  for (const span of spans) {
    first = Math.min(first, start(span).getTime())
    last = Math.max(last, end(span).getTime())
  }
  return { start: new Date(first), end: new Date(last) }
}
