-- Each count window's measured facts (an item's usage between two of its counts), kept by analytics so
-- that a variance report reads finished windows, O(items), instead of measuring them, O(days) each.
-- A window is measured when a count or a report first needs it and stored here; a later change inside
-- it (a late sale, usage restated by a changed mapping, a delivery received into the past) deletes the
-- row in the changing statement's transaction, and the next reader measures it again. A back-dated
-- count needs nothing: it makes new pairs of counts, which have no row yet (docs/analytics.md,
-- "Stored count windows").

CREATE TABLE analytics_count_windows (
  account_id       text NOT NULL,
  environment      text NOT NULL,
  item_id          text NOT NULL,
  opening_count_id text NOT NULL,
  closing_count_id text NOT NULL,
  opening_at       timestamptz NOT NULL,
  closing_at       timestamptz NOT NULL,
  -- Exact sums (unbounded numeric) in the item's unit, as the measurement added them.
  deliveries       numeric NOT NULL,
  usage_units      numeric NOT NULL,
  sale_lines       bigint NOT NULL,
  -- The lowest that deliveries less usage took stock below the opening count; null until a reader walked the window.
  lowest_net       numeric,
  PRIMARY KEY (item_id, opening_count_id, closing_count_id)
);
CREATE INDEX analytics_count_windows_span ON analytics_count_windows (item_id, closing_at);

-- The advisory lock that orders storing a window against changes inside it. Changing statements take it
-- shared (they never wait for each other); a reader stores what it measured only if it got it exclusive,
-- without waiting, before measuring: then no transaction that changed a window it measures is still
-- open, and any that starts later deletes the stored row once the reader commits.
CREATE FUNCTION analytics_window_lock(account text, environment text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT hashtextextended('analytics_count_windows/' || account || '/' || environment, 0)
$$;

-- Statement-level: deletes the stored windows of each changed item that its changed rows' times fall in
-- (one range per item, first to last changed time: a window between two changed times is measured again
-- without need, never kept wrongly). Sales after an item's latest count (the usual case) match nothing.
CREATE FUNCTION analytics_forget_count_windows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  happened_at text := CASE TG_TABLE_NAME WHEN 'stock_sale_usage' THEN 'sold_at' ELSE 'occurred_at' END;
  relevant text := CASE TG_TABLE_NAME WHEN 'stock_movements' THEN 'kind = ''delivery''' ELSE 'true' END;
BEGIN
  EXECUTE format('SELECT count(pg_advisory_xact_lock_shared(analytics_window_lock(account_id, environment)))
    FROM (SELECT DISTINCT account_id, environment FROM changed WHERE %s) tenants', relevant);
  EXECUTE format($sql$
    DELETE FROM analytics_count_windows w
    USING (SELECT item_id, min(%1$I) AS first_at, max(%1$I) AS last_at FROM changed WHERE %2$s GROUP BY item_id) c
    WHERE w.item_id = c.item_id AND w.closing_at >= c.first_at AND w.opening_at < c.last_at
  $sql$, happened_at, relevant);
  RETURN NULL;
END $$;
CREATE TRIGGER stock_sale_usage_forget_windows_insert AFTER INSERT ON stock_sale_usage
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_forget_count_windows();
CREATE TRIGGER stock_sale_usage_forget_windows_delete AFTER DELETE ON stock_sale_usage
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_forget_count_windows();
CREATE TRIGGER stock_movements_forget_windows AFTER INSERT ON stock_movements
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_forget_count_windows();
