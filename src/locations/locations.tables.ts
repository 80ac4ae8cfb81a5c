import type { ColumnType } from 'kysely'
import type { Environment, Timestamp } from '../platform/db/database.js'

/** A text column with a database default. */
type DefaultedText = ColumnType<string, string | undefined, string>

export interface LocationTable {
  account_id: string
  environment: Environment
  id: string
  name: string
  timezone: DefaultedText
  business_day_cutoff: DefaultedText
  /** ISO 3166-1 alpha-2, null when not set. */
  country: ColumnType<string | null, string | null | undefined, string | null>
  /** Item ids in the order they stand on the shelves (the count screen walks them so); empty: name order. */
  shelf_order: ColumnType<string[], string[] | undefined, string[]>
  /** When shelf_order was last saved; null: never. */
  shelf_order_updated_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  created_at: Timestamp
  updated_at: Timestamp
}

declare module '../platform/db/database.js' {
  interface Database {
    locations: LocationTable
  }
}
