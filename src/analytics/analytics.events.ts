/** The analytics events of the spec's Events table, with their exact `data` fields. */
export interface VarianceDetectedData {
  item_id: string
  name: string
  expected_consumption: number
  actual_consumption: number
  variance: number
  variance_percentage: number
  estimated_loss: number
  /** `high` above twice the threshold, `medium` above it. */
  severity: 'high' | 'medium'
  potential_causes: string[]
}

export interface VarianceThresholdExceededData {
  /** From the earliest opening count's date to the count's date. */
  period: string
  variance_rate: number
  threshold: number
  total_loss: number
  location: string
}

declare module '../platform/outbox.js' {
  interface EventCatalog {
    'variance.detected': VarianceDetectedData
    'variance.threshold_exceeded': VarianceThresholdExceededData
  }
}
