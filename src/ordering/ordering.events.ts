/** The order events of the spec's Events table, with their exact `data` fields. */
export interface OrderCreatedData {
  order_id: string
  distributor_id: string
  distributor_name: string
  status: string
  total_amount: number
  location: string
}

export interface OrderSubmittedData {
  order_id: string
  distributor_name: string
  confirmation_number: string
  estimated_delivery: string
}

export interface OrderShippedData {
  order_id: string
  tracking_number: string
  carrier: string
  estimated_delivery: string | null
}

export interface OrderDeliveredData {
  order_id: string
  delivered_at: string
  received_by: string
  /** Order lines of which something arrived. */
  items_received: number
  /** Order lines of which something arrived damaged. */
  items_damaged: number
}

declare module '../platform/outbox.js' {
  interface EventCatalog {
    'order.created': OrderCreatedData
    'order.submitted': OrderSubmittedData
    'order.shipped': OrderShippedData
    'order.delivered': OrderDeliveredData
  }
}
