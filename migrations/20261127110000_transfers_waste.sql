-- Bar operations: transfers between locations and recorded waste (DECISIONS, "Bar operations").
-- A transfer or a waste entry is a header (who, when, where) and its item lines in stock_operation_lines:
-- a transfer line is two rows there (out of the source item, into the destination item), a waste line
-- one. Those rows are what analytics reads (applied to stock or history alike, voided ones left out);
-- the ledger (stock_movements, kinds transfer and waste) holds only what took current stock, as it does
-- for sales: a back-dated entry older than an item's latest count is history for that item.

ALTER TABLE stock_movements DROP CONSTRAINT stock_movements_kind_check;
ALTER TABLE stock_movements ADD CONSTRAINT stock_movements_kind_check
  CHECK (kind IN ('count', 'adjustment', 'batch', 'delivery', 'sale', 'transfer', 'waste'));

CREATE TABLE inventory_transfers (
  id             text PRIMARY KEY,
  account_id     text NOT NULL,
  environment    text NOT NULL,
  from_location  text NOT NULL,
  to_location    text NOT NULL,
  transferred_by text NOT NULL,
  transferred_at timestamptz NOT NULL,
  notes          text,
  voided_at      timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inventory_transfers_time ON inventory_transfers (account_id, environment, transferred_at, id);

CREATE TABLE inventory_waste (
  id          text PRIMARY KEY,
  account_id  text NOT NULL,
  environment text NOT NULL,
  location_id text NOT NULL,
  recorded_by text NOT NULL,
  occurred_at timestamptz NOT NULL,
  voided_at   timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inventory_waste_time ON inventory_waste (account_id, environment, occurred_at, id);

CREATE TABLE stock_operation_lines (
  sequence         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id       text NOT NULL,
  environment      text NOT NULL,
  -- The transfer (trf_…) or waste entry (wst_…) it belongs to, and its line there (from 0).
  operation_id     text NOT NULL,
  line_no          integer NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('transfer_out', 'transfer_in', 'waste')),
  item_id          text NOT NULL REFERENCES inventory_items (id),
  location_id      text NOT NULL,
  -- Item units moved out of (transfer_out, waste) or into (transfer_in) the item: positive.
  quantity         numeric(16, 4) NOT NULL CHECK (quantity > 0),
  -- The item's cost per unit at the time (a transfer_in: the source's cost in the destination's unit).
  unit_cost        numeric(16, 4) NOT NULL,
  -- Waste only: why, and the quantity and unit as entered (a spill in oz).
  reason           text,
  entered_quantity numeric(16, 4),
  entered_unit     text,
  notes            text,
  occurred_at      timestamptz NOT NULL,
  -- true when it took current stock (dated after the item's anchor then), false when it is history.
  applied          boolean NOT NULL,
  voided_at        timestamptz,
  UNIQUE (operation_id, line_no, kind)
);
CREATE INDEX stock_operation_lines_item_time ON stock_operation_lines (item_id, occurred_at) WHERE voided_at IS NULL;

-- Analytics' rollups and stored count windows learn the new movements. Days and windows without any keep 0.
ALTER TABLE analytics_item_days
  ADD COLUMN transfers_in  numeric(20, 4) NOT NULL DEFAULT 0,
  ADD COLUMN transfers_out numeric(20, 4) NOT NULL DEFAULT 0,
  ADD COLUMN waste_units   numeric(20, 4) NOT NULL DEFAULT 0,
  ADD COLUMN waste_cost    numeric(24, 8) NOT NULL DEFAULT 0;

ALTER TABLE analytics_count_windows
  ADD COLUMN transfers_in  numeric NOT NULL DEFAULT 0,
  ADD COLUMN transfers_out numeric NOT NULL DEFAULT 0,
  ADD COLUMN waste_units   numeric NOT NULL DEFAULT 0,
  ADD COLUMN waste_cost    numeric NOT NULL DEFAULT 0;

-- Inserted lines count +1; a voided line (voided_at set by an UPDATE) -1. Keys in order, as the other rollups.
CREATE FUNCTION analytics_roll_operations() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  signed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT n.*, 1 AS sign FROM new_rows n WHERE n.voided_at IS NULL'
    ELSE 'SELECT n.*, -1 AS sign FROM new_rows n JOIN old_rows o USING (sequence) WHERE o.voided_at IS NULL AND n.voided_at IS NOT NULL' END;
BEGIN
  EXECUTE format($sql$
    INSERT INTO analytics_item_days AS d (account_id, environment, item_id, location_id, business_day, transfers_in, transfers_out, waste_units, waste_cost)
    SELECT o.account_id, o.environment, o.item_id, o.location_id, business_day(o.occurred_at, l.timezone, l.business_day_cutoff),
      coalesce(sum(o.sign * o.quantity) FILTER (WHERE o.kind = 'transfer_in'), 0),
      coalesce(sum(o.sign * o.quantity) FILTER (WHERE o.kind = 'transfer_out'), 0),
      coalesce(sum(o.sign * o.quantity) FILTER (WHERE o.kind = 'waste'), 0),
      coalesce(sum(o.sign * o.quantity * o.unit_cost) FILTER (WHERE o.kind = 'waste'), 0)
    FROM (%s) o JOIN locations l ON l.account_id = o.account_id AND l.environment = o.environment AND l.id = o.location_id
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 3, 5, 4
    ON CONFLICT (item_id, business_day, location_id) DO UPDATE SET
      transfers_in = d.transfers_in + excluded.transfers_in, transfers_out = d.transfers_out + excluded.transfers_out,
      waste_units = d.waste_units + excluded.waste_units, waste_cost = d.waste_cost + excluded.waste_cost
  $sql$, signed);
  RETURN NULL;
END $$;
CREATE TRIGGER stock_operation_lines_rollup_insert AFTER INSERT ON stock_operation_lines
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_operations();
CREATE TRIGGER stock_operation_lines_rollup_update AFTER UPDATE ON stock_operation_lines
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_operations();

-- A new or voided line inside a stored count window changes it: the window is measured again.
-- (analytics_forget_count_windows reads occurred_at for every table but stock_sale_usage, and takes
-- every row as relevant for tables other than stock_movements.)
CREATE TRIGGER stock_operation_lines_forget_windows_insert AFTER INSERT ON stock_operation_lines
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_forget_count_windows();
CREATE TRIGGER stock_operation_lines_forget_windows_update AFTER UPDATE ON stock_operation_lines
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_forget_count_windows();
