import { type SelectQueryBuilder, sql } from 'kysely'

/** Where a page of rows starts and how many it holds (a list route's PageRequest is one). */
export interface RowPage {
  perPage: number
  offset: number
}

/**
 * The rows of one page of `rows` (a query with its columns and order) and how many rows `all` (the same
 * query without them) holds: the two statements of every paged list, side by side.
 */
export async function pageWithTotal<DB, TB extends keyof DB, O, AllDB, AllTB extends keyof AllDB>(
  rows: SelectQueryBuilder<DB, TB, O>,
  all: SelectQueryBuilder<AllDB, AllTB, object>,
  page: RowPage,
): Promise<{ rows: O[]; total: number }> {
  const [found, count] = await Promise.all([
    rows.limit(page.perPage).offset(page.offset).execute(),
    all.select(sql`count(*)`.as('total')).$castTo<{ total: number | string }>().executeTakeFirstOrThrow(),
  ])
  return { rows: found, total: Number(count.total) }
}
