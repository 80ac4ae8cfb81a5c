-- Stock follows sale time. An item's latest absolute quantity (a count, its starting stock, a PUT or
-- batch quantity) is its anchor: movements dated after it apply on top, sales sold before it are history
-- that analytics reads but current stock never takes. Each sale line's usage is kept per item.

ALTER TABLE stock_movements
  ADD COLUMN location_id text,
  ADD COLUMN unit_cost numeric(16, 4),
  -- true for absolute quantities; anchor_quantity is the quantity they set as of occurred_at (for a
  -- back-dated count: what was counted, not the stock after later movements were re-applied).
  ADD COLUMN anchor boolean NOT NULL DEFAULT false,
  ADD COLUMN anchor_quantity numeric(16, 4);
UPDATE stock_movements m SET location_id = i.location_id, unit_cost = i.cost_per_unit FROM inventory_items i WHERE i.id = m.item_id;
UPDATE stock_movements SET anchor = true, anchor_quantity = quantity_after WHERE kind IN ('count', 'adjustment');
ALTER TABLE stock_movements ALTER COLUMN location_id SET NOT NULL, ALTER COLUMN unit_cost SET NOT NULL;
ALTER TABLE stock_movements ADD CONSTRAINT stock_movements_anchor_quantity CHECK (anchor = (anchor_quantity IS NOT NULL));
CREATE INDEX stock_movements_location_time ON stock_movements (account_id, environment, location_id, occurred_at);
CREATE INDEX stock_movements_anchors ON stock_movements (item_id, occurred_at) WHERE anchor;

-- When the item's anchor stands: sales sold at or before it are history.
ALTER TABLE inventory_items ADD COLUMN anchored_at timestamptz;
UPDATE inventory_items i SET anchored_at = coalesce((SELECT max(occurred_at) FROM stock_movements m WHERE m.item_id = i.id AND m.anchor), i.created_at);
ALTER TABLE inventory_items ALTER COLUMN anchored_at SET NOT NULL, ALTER COLUMN anchored_at SET DEFAULT now();

-- The business day of a moment at a location: its local date, less the cut-off (a sale at 01:30 with a
-- 04:00 cut-off belongs to the day before).
CREATE FUNCTION business_day(at timestamptz, timezone text, cutoff text) RETURNS date
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN ((at AT TIME ZONE timezone) - cutoff::interval)::date;

-- What each sale line took from each item (a recipe line: one row per ingredient), in the item's unit,
-- converted once when the line depleted stock, so reports never convert again.
CREATE TABLE stock_sale_usage (
  sequence    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id  text NOT NULL,
  environment text NOT NULL,
  item_id     text NOT NULL,
  -- The item's location when the sale was applied: where the stock was taken from.
  location_id text NOT NULL,
  -- The sale line it belongs to (pos_sales.sequence); no foreign key, inventory does not know POS tables.
  sale_line   bigint NOT NULL,
  recipe_id   text,
  sold_at     timestamptz NOT NULL,
  units       numeric(20, 8) NOT NULL,
  -- The item's cost per unit when the sale was applied.
  unit_cost   numeric(16, 4) NOT NULL,
  -- false: sold before the item's anchor, history only (current stock never took it).
  applied     boolean NOT NULL,
  -- One application of usage (a sync run's, an import's, a new mapping's): its ledger rows reference it.
  batch_id    text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (sale_line, item_id)
);
CREATE INDEX stock_sale_usage_item_time ON stock_sale_usage (item_id, sold_at) INCLUDE (units, applied);
CREATE INDEX stock_sale_usage_location_time ON stock_sale_usage (account_id, environment, location_id, sold_at);
CREATE INDEX stock_sale_usage_batch ON stock_sale_usage (batch_id);

CREATE INDEX pos_sales_location_time ON pos_sales (account_id, environment, location_id, sold_at);
