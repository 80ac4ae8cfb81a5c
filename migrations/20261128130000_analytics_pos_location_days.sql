-- A POS connection's revenue per location and business day, and its mapped part, kept with the other
-- rollups by the statement-level trigger on pos_sales (analytics_roll_sales). The variance report's data
-- quality sums its period's revenue at its locations: from analytics_pos_item_days that was every POS
-- item's day of the period (30,000 rows at 5,000,000 sale lines, 17.6 ms, the most of a report made
-- again for one item), from here one row per connection and day. Per connection, not per location
-- alone: each import adds to its own connection's rows, so two connections' imports at one location do
-- not wait on one row.
CREATE TABLE analytics_pos_location_days (
  account_id     text NOT NULL,
  environment    text NOT NULL,
  location_id    text NOT NULL,
  business_day   date NOT NULL,
  connection_id  text NOT NULL,
  revenue        numeric(24, 4) NOT NULL DEFAULT 0,
  mapped_revenue numeric(24, 4) NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, environment, location_id, business_day, connection_id)
) WITH (fillfactor = 70);

-- As before (20261126150000_analytics_unmapped_sale_days.sql), and the same signed rows summed per
-- connection, location and business day into analytics_pos_location_days.
CREATE OR REPLACE FUNCTION analytics_roll_sales() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  signed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT n.*, 1 AS sign FROM new_rows n'
    WHEN 'DELETE' THEN 'SELECT o.*, -1 AS sign FROM old_rows o'
    ELSE 'SELECT n.*, 1 AS sign FROM new_rows n JOIN old_rows o USING (sequence) WHERE n.depleted <> o.depleted
      UNION ALL SELECT o.*, -1 FROM old_rows o JOIN new_rows n USING (sequence) WHERE n.depleted <> o.depleted' END;
BEGIN
  EXECUTE format($sql$
    WITH s AS (
      SELECT s.account_id, s.environment, s.connection_id, s.pos_item_id, s.location_id, s.name, s.quantity, s.unit_price, s.depleted, s.sign,
        business_day(s.sold_at, l.timezone, l.business_day_cutoff) AS day
      FROM (%s) s
      JOIN locations l ON l.account_id = s.account_id AND l.environment = s.environment AND l.id = s.location_id
    ), pos_item_days AS (
      INSERT INTO analytics_pos_item_days AS d (account_id, environment, connection_id, pos_item_id, location_id, business_day, name,
        quantity, revenue, mapped_quantity, mapped_revenue)
      SELECT s.account_id, s.environment, s.connection_id, s.pos_item_id, s.location_id, s.day, min(s.name),
        sum(s.sign * s.quantity), sum(s.sign * s.quantity * s.unit_price),
        coalesce(sum(s.sign * s.quantity) FILTER (WHERE s.depleted), 0),
        coalesce(sum(s.sign * s.quantity * s.unit_price) FILTER (WHERE s.depleted), 0)
      FROM s
      GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 3, 4, 6, 5
      ON CONFLICT (connection_id, pos_item_id, business_day, location_id) DO UPDATE SET
        quantity = d.quantity + excluded.quantity, revenue = d.revenue + excluded.revenue,
        mapped_quantity = d.mapped_quantity + excluded.mapped_quantity, mapped_revenue = d.mapped_revenue + excluded.mapped_revenue
    ), pos_location_days AS (
      INSERT INTO analytics_pos_location_days AS d (account_id, environment, location_id, business_day, connection_id, revenue, mapped_revenue)
      SELECT s.account_id, s.environment, s.location_id, s.day, s.connection_id, sum(s.sign * s.quantity * s.unit_price),
        coalesce(sum(s.sign * s.quantity * s.unit_price) FILTER (WHERE s.depleted), 0)
      FROM s
      GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (account_id, environment, location_id, business_day, connection_id) DO UPDATE SET
        revenue = d.revenue + excluded.revenue, mapped_revenue = d.mapped_revenue + excluded.mapped_revenue
    )
    INSERT INTO analytics_unmapped_sale_days AS d (account_id, environment, location_id, business_day, connection_id, pos_item_id, name,
      sale_lines, quantity)
    SELECT s.account_id, s.environment, s.location_id, s.day, s.connection_id, s.pos_item_id, s.name, sum(s.sign), sum(s.sign * s.quantity)
    FROM s
    WHERE NOT s.depleted
    GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (account_id, environment, location_id, business_day, connection_id, pos_item_id, name) DO UPDATE SET
      sale_lines = d.sale_lines + excluded.sale_lines, quantity = d.quantity + excluded.quantity
  $sql$, signed);
  RETURN NULL;
END $$;

-- The days rolled up before this table existed.
INSERT INTO analytics_pos_location_days (account_id, environment, location_id, business_day, connection_id, revenue, mapped_revenue)
SELECT account_id, environment, location_id, business_day, connection_id, sum(revenue), sum(mapped_revenue)
FROM analytics_pos_item_days
GROUP BY 1, 2, 3, 4, 5;

-- Logged like the POS item days: by business day, naming no item (only data quality reads it).
SELECT replace_change_log_triggers('analytics_pos_location_days', ARRAY['insert', 'update', 'delete'],
  'log_timed_tenant_changes(''business_day'', ''days_from'', ''''''{}''''::text[]'')');
