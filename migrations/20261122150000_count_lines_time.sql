-- A count line carries its count's time and entry time, so an item's counts are read in time order
-- through one index (stock-history.ts, countsOf: a report reads each item's last few counts before the
-- period and those inside it). Before, every count line of the items was joined to its count and
-- sorted: 52,000 lines for a year of weekly counts of 1,000 items, a sort that spilled to disk.
ALTER TABLE inventory_count_lines ADD COLUMN counted_at timestamptz, ADD COLUMN recorded_at timestamptz;
UPDATE inventory_count_lines l SET counted_at = c.counted_at, recorded_at = c.created_at FROM inventory_counts c WHERE c.id = l.count_id;
ALTER TABLE inventory_count_lines ALTER COLUMN counted_at SET NOT NULL, ALTER COLUMN recorded_at SET NOT NULL;
CREATE INDEX inventory_count_lines_item_time ON inventory_count_lines (item_id, counted_at, recorded_at) INCLUDE (count_id, actual);
DROP INDEX inventory_count_lines_item;
