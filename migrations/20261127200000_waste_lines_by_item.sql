-- The variance report's recorded waste by reason (wasteCostByReason, inventory/stock-history.ts) reads the
-- waste lines of each scored window: with the reason, quantity and cost in a partial index of live waste
-- lines, by item and time, it reads them from the index alone instead of scanning every operation line
-- (transfers are four in five of them) and hashing the waste (docs/benchmarks.md, session 14: the read
-- 0.23× on the 50,000-line bench database).
CREATE INDEX stock_operation_lines_waste_item_time ON stock_operation_lines (item_id, occurred_at) INCLUDE (reason, quantity, unit_cost)
  WHERE kind = 'waste' AND voided_at IS NULL;
