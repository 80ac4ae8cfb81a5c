-- Changes of the context of a report, not of any item's history (docs/decisions.md "The context made
-- again"): a setting, a location, an item's name, unit or place, a new or deleted item, a mapping, a
-- recipe, a sale line (its usage rows name their items) or the unmapped sales of a day. Each names no item
-- (item_ids NULL): it can reach any item through what scopes a report, names its items or is matched among
-- them. Until now every such change made a cached variance report compute whole, though none of them
-- changes what was counted, moved, sold or paid for an item: its window, measured from those rows, holds.
-- reaches_history false marks them, so an answer made of items can read its context again and make again
-- only the items whose row changed, beside what reads the context (the causes, data quality). Every other
-- change that names no item (a count, transfer, waste entry or order deleted; a month of sales detached)
-- still reaches any item's history.
ALTER TABLE tenant_changes ADD COLUMN reaches_history boolean NOT NULL DEFAULT true;

-- A table of context: any item, no item's history.
CREATE FUNCTION log_context_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO tenant_changes (account_id, environment, reaches_history) SELECT DISTINCT account_id, environment, false FROM old_rows;
  ELSE
    INSERT INTO tenant_changes (account_id, environment, reaches_history) SELECT DISTINCT account_id, environment, false FROM new_rows;
  END IF;
  RETURN NULL;
END $$;

-- Timed rows: TG_ARGV[3] 'context' marks rows that are context (sale lines, unmapped sales by day).
CREATE OR REPLACE FUNCTION log_timed_tenant_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO tenant_changes (account_id, environment, %2$I, item_ids, reaches_history)
    SELECT account_id, environment, min(%1$I), %4$s, %5$s FROM (%3$s) AS touched GROUP BY 1, 2',
    TG_ARGV[0], TG_ARGV[1], CASE TG_OP WHEN 'INSERT' THEN 'SELECT * FROM new_rows' WHEN 'DELETE' THEN 'SELECT * FROM old_rows'
      ELSE 'SELECT * FROM new_rows UNION ALL SELECT * FROM old_rows' END,
    CASE WHEN TG_NARGS > 2 THEN TG_ARGV[2] ELSE 'NULL::text[]' END,
    CASE WHEN TG_NARGS > 3 AND TG_ARGV[3] = 'context' THEN 'false' ELSE 'true' END);
  RETURN NULL;
END $$;

-- Updates of rows holding present state: what else changes (an item's name, unit, category or location; a
-- connection's or staff member's settings) is context.
CREATE OR REPLACE FUNCTION log_present_state_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  present text[] := string_to_array(TG_ARGV[0], ',');
  own text[] := present || string_to_array(TG_ARGV[1], ',');
  present_only boolean := NOT EXISTS (SELECT to_jsonb(n) - present FROM new_rows n EXCEPT ALL SELECT to_jsonb(o) - present FROM old_rows o);
  -- Present state is among the item's own columns: compared again only when something else changed
  -- (a sale's stock, the hot path, pays one comparison as before).
  own_only boolean := TG_ARGV[2] <> '' AND (present_only OR NOT EXISTS (SELECT to_jsonb(n) - own FROM new_rows n EXCEPT ALL SELECT to_jsonb(o) - own FROM old_rows o));
BEGIN
  -- Static statements (their plans kept): an update of one row runs this as often as a write of many.
  IF own_only THEN
    INSERT INTO tenant_changes (account_id, environment, rows_from, item_ids)
    SELECT account_id, environment, CASE WHEN present_only THEN 'infinity'::timestamptz END, array_agg(DISTINCT to_jsonb(r) ->> TG_ARGV[2])
    FROM new_rows r GROUP BY 1, 2;
  ELSE
    INSERT INTO tenant_changes (account_id, environment, rows_from, reaches_history)
    SELECT DISTINCT account_id, environment, CASE WHEN present_only THEN 'infinity'::timestamptz END, false FROM new_rows;
  END IF;
  RETURN NULL;
END $$;

-- Makes a table's logging triggers again, for the events named, each with the transition tables it has:
-- for this migration and those that change what a table's changes reach.
CREATE FUNCTION replace_change_log_triggers(logged regclass, events text[], function text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  event text;
BEGIN
  FOREACH event IN ARRAY events LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', logged::text || '_log_' || event, logged);
    EXECUTE format('CREATE TRIGGER %I AFTER %s ON %s REFERENCING %s FOR EACH STATEMENT EXECUTE FUNCTION %s', logged::text || '_log_' || event,
      upper(event), logged, CASE event WHEN 'insert' THEN 'NEW TABLE AS new_rows' WHEN 'delete' THEN 'OLD TABLE AS old_rows'
        ELSE 'OLD TABLE AS old_rows NEW TABLE AS new_rows' END, function);
  END LOOP;
END $$;

SELECT replace_change_log_triggers(logged, events, function) FROM (VALUES
  ('settings'::regclass, ARRAY['insert', 'update', 'delete'], 'log_context_changes()'),
  ('locations', ARRAY['insert', 'update', 'delete'], 'log_context_changes()'),
  ('inventory_items', ARRAY['insert', 'delete'], 'log_context_changes()'),
  ('pos_connections', ARRAY['insert', 'delete'], 'log_context_changes()'),
  ('pos_staff', ARRAY['insert', 'delete'], 'log_context_changes()'),
  ('pos_mappings', ARRAY['insert', 'update', 'delete'], 'log_context_changes()'),
  ('recipes', ARRAY['insert', 'update', 'delete'], 'log_context_changes()'),
  ('recipe_ingredients', ARRAY['insert', 'update', 'delete'], 'log_context_changes()'),
  -- A sale line's own row: the stock it took is in its usage rows, which name their items.
  ('pos_sales', ARRAY['insert'], 'log_timed_tenant_changes(''sold_at'', ''rows_from'', ''CASE WHEN bool_and(depleted) THEN ''''{}''''::text[] END'', ''context'')'),
  ('pos_sales', ARRAY['update', 'delete'], 'log_timed_tenant_changes(''sold_at'', ''rows_from'', ''NULL::text[]'', ''context'')'),
  ('analytics_unmapped_sale_days', ARRAY['insert', 'update', 'delete'], 'log_timed_tenant_changes(''business_day'', ''days_from'', ''NULL::text[]'', ''context'')')
) AS replaced (logged, events, function);
