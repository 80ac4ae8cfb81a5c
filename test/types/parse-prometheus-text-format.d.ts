// The parser ships no types. Its output follows prom2json: one family per metric name.
declare module 'parse-prometheus-text-format' {
  export interface Sample {
    labels?: Record<string, string>
    /** Counters and gauges. */
    value?: string
    /** Histograms: cumulative counts by upper bound, and the totals. */
    buckets?: Record<string, string>
    count?: string
    sum?: string
  }
  export interface MetricFamily {
    name: string
    help: string
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
    metrics: Sample[]
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[]
}
