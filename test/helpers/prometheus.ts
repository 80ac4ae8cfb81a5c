import assert from 'node:assert/strict'
import parsePrometheusTextFormat, { type MetricFamily, type Sample } from 'parse-prometheus-text-format'
import type { TestContext } from './context.js'

/** A /metrics exposition parsed by an independent Prometheus text parser. */
export class Exposition {
  constructor(readonly families: MetricFamily[]) {}

  family(name: string): MetricFamily | undefined {
    return this.families.find((family) => family.name === name)
  }

  /** The sample of `name` whose labels include `labels`; undefined when there is none. */
  sample(name: string, labels: Record<string, string> = {}): Sample | undefined {
    return this.family(name)?.metrics.find((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value))
  }

  /**
   * A counter's or gauge's value; 0 for a series not there yet. (Histograms are not read: this parser
   * merges a histogram's labelled series into one, so tests count with the matching counters.)
   */
  value(name: string, labels: Record<string, string> = {}): number {
    return Number(this.sample(name, labels)?.value ?? 0)
  }
}

/** GET /metrics with the bearer token, asserted 200 in the Prometheus text format, parsed. */
export async function scrape(ctx: TestContext, token: string): Promise<Exposition> {
  const response = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/)
  return new Exposition(parsePrometheusTextFormat(response.body))
}
