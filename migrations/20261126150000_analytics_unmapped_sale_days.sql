-- Unmapped sale lines per POS item, name and business day, kept by analytics like its other rollups
-- (20261122120000_analytics_rollups.sql): in the transaction of the lines they sum, by the statement-level
-- trigger that keeps analytics_pos_item_days. The variance report's cause rules read the unmapped POS
-- items sold inside a count window from here for the window's whole business days and from the raw lines
-- only for the partial days at its ends: O(days), where reading every unmapped line of the window was
-- O(sale lines). The name is part of the key so that the lowest name of a POS item's unmapped lines, which
-- the rules match, is exact; sale_lines tells a POS item whose unmapped quantities cancel from one that
-- sold nothing unmapped.

CREATE TABLE analytics_unmapped_sale_days (
  account_id    text NOT NULL,
  environment   text NOT NULL,
  location_id   text NOT NULL,
  business_day  date NOT NULL,
  connection_id text NOT NULL,
  pos_item_id   text NOT NULL,
  name          text NOT NULL,
  sale_lines    bigint NOT NULL DEFAULT 0,
  quantity      numeric(24, 4) NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, environment, location_id, business_day, connection_id, pos_item_id, name)
);

-- As before, and the unmapped lines (NOT depleted) of the same signed rows into analytics_unmapped_sale_days:
-- a line mapped later leaves it (-1), a failed run's staged lines too. One statement, so each row's
-- business day is worked out once.
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

-- Lines written before this table existed.
INSERT INTO analytics_unmapped_sale_days (account_id, environment, location_id, business_day, connection_id, pos_item_id, name, sale_lines, quantity)
SELECT s.account_id, s.environment, s.location_id, business_day(s.sold_at, l.timezone, l.business_day_cutoff), s.connection_id, s.pos_item_id, s.name,
  count(*), sum(s.quantity)
FROM pos_sales s JOIN locations l ON l.account_id = s.account_id AND l.environment = s.environment AND l.id = s.location_id
WHERE NOT s.depleted
GROUP BY 1, 2, 3, 4, 5, 6, 7;
