-- Sales deplete the venue that sold (DECISIONS, "Sales deplete the venue that sold"): a sale line takes
-- stock from the item of its mapped SKU at its own location when that location stocks it, else from the
-- mapped item elsewhere. A usage row keeps where its line was sold (sale_location_id) beside where the
-- stock was taken (location_id, the depleted item's location), so reports can count the lines that took
-- another location's stock.
ALTER TABLE stock_sale_usage ADD COLUMN sale_location_id text;
-- Usage recorded before this took the mapped item wherever its line was sold: the line's own location.
UPDATE stock_sale_usage u SET sale_location_id = s.location_id FROM pos_sales s WHERE s.sequence = u.sale_line;
UPDATE stock_sale_usage SET sale_location_id = location_id WHERE sale_location_id IS NULL;
ALTER TABLE stock_sale_usage ALTER COLUMN sale_location_id SET NOT NULL;
-- The variance report counts these per location and period: few rows, found without reading the others.
CREATE INDEX stock_sale_usage_cross_location ON stock_sale_usage (account_id, environment, location_id, sold_at)
  WHERE location_id <> sale_location_id;
