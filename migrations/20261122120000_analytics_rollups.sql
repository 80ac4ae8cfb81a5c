-- Analytics' daily rollups, kept by statement-level triggers in the transaction of the rows they sum, so
-- a report reads O(items × days) rows whatever the number of sale lines. Each trigger sums a statement's
-- rows per key and folds them in with one upsert, keys in order (concurrent statements never deadlock).
-- Days are business days of the row's location as it was when the row was written.

CREATE TABLE analytics_item_days (
  account_id   text NOT NULL,
  environment  text NOT NULL,
  item_id      text NOT NULL,
  location_id  text NOT NULL,
  business_day date NOT NULL,
  -- Every sale line's usage of the item (taken from stock or history), in the item's unit.
  usage_units  numeric(24, 8) NOT NULL DEFAULT 0,
  -- Σ usage × the unit cost when the sale was applied.
  usage_cost   numeric(24, 8) NOT NULL DEFAULT 0,
  sale_lines   bigint NOT NULL DEFAULT 0,
  -- Received deliveries, item units.
  deliveries   numeric(20, 4) NOT NULL DEFAULT 0,
  PRIMARY KEY (item_id, business_day, location_id)
);
CREATE INDEX analytics_item_days_tenant ON analytics_item_days (account_id, environment, location_id, business_day);

CREATE TABLE analytics_pos_item_days (
  account_id      text NOT NULL,
  environment     text NOT NULL,
  connection_id   text NOT NULL,
  pos_item_id     text NOT NULL,
  location_id     text NOT NULL,
  business_day    date NOT NULL,
  name            text NOT NULL,
  quantity        numeric(24, 4) NOT NULL DEFAULT 0,
  revenue         numeric(24, 4) NOT NULL DEFAULT 0,
  -- The part of it whose lines took stock through a mapping.
  mapped_quantity numeric(24, 4) NOT NULL DEFAULT 0,
  mapped_revenue  numeric(24, 4) NOT NULL DEFAULT 0,
  PRIMARY KEY (connection_id, pos_item_id, business_day, location_id)
);
CREATE INDEX analytics_pos_item_days_tenant ON analytics_pos_item_days (account_id, environment, location_id, business_day);

-- Usage rows are added by sales and removed when a changed mapping restates them.
CREATE FUNCTION analytics_roll_usage() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  signed text := CASE TG_OP WHEN 'INSERT' THEN 'SELECT n.*, 1 AS sign FROM new_rows n' ELSE 'SELECT o.*, -1 AS sign FROM old_rows o' END;
BEGIN
  EXECUTE format($sql$
    INSERT INTO analytics_item_days AS d (account_id, environment, item_id, location_id, business_day, usage_units, usage_cost, sale_lines)
    SELECT u.account_id, u.environment, u.item_id, u.location_id, business_day(u.sold_at, l.timezone, l.business_day_cutoff),
      sum(u.sign * u.units), sum(u.sign * u.units * u.unit_cost), sum(u.sign)
    FROM (%s) u JOIN locations l ON l.account_id = u.account_id AND l.environment = u.environment AND l.id = u.location_id
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 3, 5, 4
    ON CONFLICT (item_id, business_day, location_id) DO UPDATE SET
      usage_units = d.usage_units + excluded.usage_units, usage_cost = d.usage_cost + excluded.usage_cost,
      sale_lines = d.sale_lines + excluded.sale_lines
  $sql$, signed);
  RETURN NULL;
END $$;
CREATE TRIGGER stock_sale_usage_rollup_insert AFTER INSERT ON stock_sale_usage
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_usage();
CREATE TRIGGER stock_sale_usage_rollup_delete AFTER DELETE ON stock_sale_usage
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_usage();

CREATE FUNCTION analytics_roll_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_item_days AS d (account_id, environment, item_id, location_id, business_day, deliveries)
  SELECT m.account_id, m.environment, m.item_id, m.location_id, business_day(m.occurred_at, l.timezone, l.business_day_cutoff), sum(m.delta)
  FROM new_rows m JOIN locations l ON l.account_id = m.account_id AND l.environment = m.environment AND l.id = m.location_id
  WHERE m.kind = 'delivery'
  GROUP BY 1, 2, 3, 4, 5 ORDER BY 3, 5, 4
  ON CONFLICT (item_id, business_day, location_id) DO UPDATE SET deliveries = d.deliveries + excluded.deliveries;
  RETURN NULL;
END $$;
CREATE TRIGGER stock_movements_rollup AFTER INSERT ON stock_movements
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_deliveries();

-- Folds a statement's sale lines into the POS item days: new lines count +1, removed ones (a failed
-- run's staged lines) -1, and a line whose mapped state changed moves between the mapped and the rest.
CREATE FUNCTION analytics_roll_sales() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  signed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT n.*, 1 AS sign FROM new_rows n'
    WHEN 'DELETE' THEN 'SELECT o.*, -1 AS sign FROM old_rows o'
    ELSE 'SELECT n.*, 1 AS sign FROM new_rows n JOIN old_rows o USING (sequence) WHERE n.depleted <> o.depleted
      UNION ALL SELECT o.*, -1 FROM old_rows o JOIN new_rows n USING (sequence) WHERE n.depleted <> o.depleted' END;
BEGIN
  EXECUTE format($sql$
    INSERT INTO analytics_pos_item_days AS d (account_id, environment, connection_id, pos_item_id, location_id, business_day, name,
      quantity, revenue, mapped_quantity, mapped_revenue)
    SELECT s.account_id, s.environment, s.connection_id, s.pos_item_id, s.location_id,
      business_day(s.sold_at, l.timezone, l.business_day_cutoff), min(s.name),
      sum(s.sign * s.quantity), sum(s.sign * s.quantity * s.unit_price),
      coalesce(sum(s.sign * s.quantity) FILTER (WHERE s.depleted), 0),
      coalesce(sum(s.sign * s.quantity * s.unit_price) FILTER (WHERE s.depleted), 0)
    FROM (%s) s
    JOIN locations l ON l.account_id = s.account_id AND l.environment = s.environment AND l.id = s.location_id
    GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 3, 4, 6, 5
    ON CONFLICT (connection_id, pos_item_id, business_day, location_id) DO UPDATE SET
      quantity = d.quantity + excluded.quantity, revenue = d.revenue + excluded.revenue,
      mapped_quantity = d.mapped_quantity + excluded.mapped_quantity, mapped_revenue = d.mapped_revenue + excluded.mapped_revenue
  $sql$, signed);
  RETURN NULL;
END $$;
CREATE TRIGGER pos_sales_rollup_insert AFTER INSERT ON pos_sales
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_sales();
CREATE TRIGGER pos_sales_rollup_delete AFTER DELETE ON pos_sales
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_sales();
CREATE TRIGGER pos_sales_rollup_update AFTER UPDATE ON pos_sales
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_sales();

-- Rows written before the rollups existed.
INSERT INTO analytics_item_days (account_id, environment, item_id, location_id, business_day, usage_units, usage_cost, sale_lines)
SELECT u.account_id, u.environment, u.item_id, u.location_id, business_day(u.sold_at, l.timezone, l.business_day_cutoff),
  sum(u.units), sum(u.units * u.unit_cost), count(*)
FROM stock_sale_usage u JOIN locations l ON l.account_id = u.account_id AND l.environment = u.environment AND l.id = u.location_id
GROUP BY 1, 2, 3, 4, 5;
INSERT INTO analytics_item_days AS d (account_id, environment, item_id, location_id, business_day, deliveries)
SELECT m.account_id, m.environment, m.item_id, m.location_id, business_day(m.occurred_at, l.timezone, l.business_day_cutoff), sum(m.delta)
FROM stock_movements m JOIN locations l ON l.account_id = m.account_id AND l.environment = m.environment AND l.id = m.location_id
WHERE m.kind = 'delivery'
GROUP BY 1, 2, 3, 4, 5
ON CONFLICT (item_id, business_day, location_id) DO UPDATE SET deliveries = d.deliveries + excluded.deliveries;
INSERT INTO analytics_pos_item_days (account_id, environment, connection_id, pos_item_id, location_id, business_day, name,
  quantity, revenue, mapped_quantity, mapped_revenue)
SELECT s.account_id, s.environment, s.connection_id, s.pos_item_id, s.location_id, business_day(s.sold_at, l.timezone, l.business_day_cutoff),
  min(s.name), sum(s.quantity), sum(s.quantity * s.unit_price),
  coalesce(sum(s.quantity) FILTER (WHERE s.depleted), 0), coalesce(sum(s.quantity * s.unit_price) FILTER (WHERE s.depleted), 0)
FROM pos_sales s JOIN locations l ON l.account_id = s.account_id AND l.environment = s.environment AND l.id = s.location_id
GROUP BY 1, 2, 3, 4, 5, 6;
