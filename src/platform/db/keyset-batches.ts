/** Rows per query of an export: each batch is one short query, so no transaction stays open while a client reads. */
export const EXPORT_BATCH_SIZE = 200

/**
 * Every row of a list, batch after batch: `readAfter(last, size)` answers up to `size` rows following
 * the row `last` (the fields the keyset reads) in the list's order (the first ones when undefined), by keyset, never by offset.
 */
export async function* keysetBatches<Row extends Cursor, Cursor>(
  readAfter: (last: Cursor | undefined, size: number) => Promise<Row[]>,
  size = EXPORT_BATCH_SIZE,
): AsyncGenerator<Row[]> {
  let last: Cursor | undefined
  for (;;) {
    const rows = await readAfter(last, size)
    if (rows.length > 0) yield rows
    if (rows.length < size) return
    last = rows[rows.length - 1]
  }
}
