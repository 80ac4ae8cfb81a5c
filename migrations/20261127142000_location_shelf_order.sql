-- The order a location's items stand on its shelves, for counting walk-throughs: item ids, first shelf
-- first. Items not listed follow in name order; ids of items deleted or moved since are skipped on read.
ALTER TABLE locations ADD COLUMN shelf_order text[] NOT NULL DEFAULT '{}';
ALTER TABLE locations ADD COLUMN shelf_order_updated_at timestamptz;
