-- The variance report's cause rules read a location's unmapped sale lines over the flagged windows
-- (pos/sales-history.ts, unmappedSalesByHour: tenant, location, time range, NOT depleted). Through
-- pos_sales_tenant_time that reads every line of the range and drops the mapped ones, O(sale lines);
-- this partial index holds only the unmapped lines, usually a small share.
CREATE INDEX pos_sales_unmapped_time ON pos_sales (account_id, environment, location_id, sold_at) WHERE NOT depleted;
