-- Deliveries dated into the past (a receipt's received_at) follow the counts' rule: one dated after the
-- item's anchor takes current stock as a ledger row of kind delivery, as every delivery did before; one
-- dated at or before it is history (the count already saw the shelf), and the ledger holds only what took
-- current stock. A history delivery is a line of kind delivery in stock_operation_lines (applied false,
-- operation_id the order, line_no its order line), where history transfers and waste already live, so
-- it reaches analytics beside the ledger's deliveries: the daily rollup below adds it to `deliveries`,
-- and the existing triggers forget the stored count windows it falls in.

ALTER TABLE stock_operation_lines DROP CONSTRAINT stock_operation_lines_kind_check;
ALTER TABLE stock_operation_lines ADD CONSTRAINT stock_operation_lines_kind_check
  CHECK (kind IN ('transfer_out', 'transfer_in', 'waste', 'delivery'));

-- analytics_roll_operations of 20261127110000_transfers_waste.sql, with delivery lines folded into deliveries.
CREATE OR REPLACE FUNCTION analytics_roll_operations() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  signed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT n.*, 1 AS sign FROM new_rows n WHERE n.voided_at IS NULL'
    ELSE 'SELECT n.*, -1 AS sign FROM new_rows n JOIN old_rows o USING (sequence) WHERE o.voided_at IS NULL AND n.voided_at IS NOT NULL' END;
BEGIN
  EXECUTE format($sql$
    INSERT INTO analytics_item_days AS d (account_id, environment, item_id, location_id, business_day, transfers_in, transfers_out, waste_units, waste_cost, deliveries)
    SELECT o.account_id, o.environment, o.item_id, o.location_id, business_day(o.occurred_at, l.timezone, l.business_day_cutoff),
      coalesce(sum(o.sign * o.quantity) FILTER (WHERE o.kind = 'transfer_in'), 0),
      coalesce(sum(o.sign * o.quantity) FILTER (WHERE o.kind = 'transfer_out'), 0),
      coalesce(sum(o.sign * o.quantity) FILTER (WHERE o.kind = 'waste'), 0),
      coalesce(sum(o.sign * o.quantity * o.unit_cost) FILTER (WHERE o.kind = 'waste'), 0),
      coalesce(sum(o.sign * o.quantity) FILTER (WHERE o.kind = 'delivery'), 0)
    FROM (%s) o JOIN locations l ON l.account_id = o.account_id AND l.environment = o.environment AND l.id = o.location_id
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 3, 5, 4
    ON CONFLICT (item_id, business_day, location_id) DO UPDATE SET
      transfers_in = d.transfers_in + excluded.transfers_in, transfers_out = d.transfers_out + excluded.transfers_out,
      waste_units = d.waste_units + excluded.waste_units, waste_cost = d.waste_cost + excluded.waste_cost,
      deliveries = d.deliveries + excluded.deliveries
  $sql$, signed);
  RETURN NULL;
END $$;
