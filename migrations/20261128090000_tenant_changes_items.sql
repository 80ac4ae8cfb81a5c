-- Which items a change can reach (docs/decisions.md "What a change can reach"): a count of one shelf, a
-- delivery, waste or a transfer made every cached variance report of its tenant compute all its items
-- again, though a report's item is read only from that item's rows. A change row now carries the items
-- its statement's rows are about (item_ids), where every row it wrote names one item and nothing else
-- reads it; an answer made of one part per item makes only those items' parts again (the totals with
-- them). NULL: the change can reach any item, as before.
-- Not in the index: a count of a whole bar names a thousand items, more than an index row holds, and
-- only a cached answer that changes reached reads them.
ALTER TABLE tenant_changes ADD COLUMN item_ids text[];

-- Rows that each name an item (item_id) and hold the tenant's columns: the distinct items. With
-- TG_ARGV[0] 'present', rows that are an item's present state as a whole, logged as a change of the
-- present ('infinity'): the stored demand forecasts, which a refit replaces after every change of sales
-- history (during service, a minute after each POS sync), and which no answer about a period reads.
-- Static statements, their plans kept: a stored window is forgotten row by row as movements arrive, and
-- each of those deletes runs this (a dynamic statement, planned each time, made a 200-line count 9 %
-- slower).
CREATE FUNCTION log_item_tenant_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  bound timestamptz := CASE WHEN TG_NARGS > 0 AND TG_ARGV[0] = 'present' THEN 'infinity'::timestamptz END;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO tenant_changes (account_id, environment, rows_from, item_ids)
    SELECT account_id, environment, bound, array_agg(DISTINCT item_id) FROM new_rows GROUP BY 1, 2;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO tenant_changes (account_id, environment, rows_from, item_ids)
    SELECT account_id, environment, bound, array_agg(DISTINCT item_id) FROM old_rows GROUP BY 1, 2;
  ELSE
    INSERT INTO tenant_changes (account_id, environment, rows_from, item_ids)
    SELECT account_id, environment, bound, array_agg(DISTINCT item_id)
    FROM (SELECT account_id, environment, item_id FROM new_rows UNION ALL SELECT account_id, environment, item_id FROM old_rows) AS touched
    GROUP BY 1, 2;
  END IF;
  RETURN NULL;
END $$;

-- Timed rows (log_timed_tenant_changes) and the items they reach: TG_ARGV[2], an expression over the
-- statement's rows (touched), gives item_ids; without it, any item.
CREATE OR REPLACE FUNCTION log_timed_tenant_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO tenant_changes (account_id, environment, %2$I, item_ids) SELECT account_id, environment, min(%1$I), %4$s FROM (%3$s) AS touched GROUP BY 1, 2',
    TG_ARGV[0], TG_ARGV[1], CASE TG_OP WHEN 'INSERT' THEN 'SELECT * FROM new_rows' WHEN 'DELETE' THEN 'SELECT * FROM old_rows'
      ELSE 'SELECT * FROM new_rows UNION ALL SELECT * FROM old_rows' END,
    CASE WHEN TG_NARGS > 2 THEN TG_ARGV[2] ELSE 'NULL::text[]' END);
  RETURN NULL;
END $$;

-- A child row without tenant columns (log_child_tenant_changes) that names an item: TG_ARGV[2] its column.
CREATE OR REPLACE FUNCTION log_child_tenant_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO tenant_changes (account_id, environment, item_ids) SELECT p.account_id, p.environment, %4$s FROM %1$I c JOIN %2$I p ON p.id = c.%3$I GROUP BY 1, 2',
    CASE WHEN TG_OP = 'DELETE' THEN 'old_rows' ELSE 'new_rows' END, TG_ARGV[0], TG_ARGV[1],
    CASE WHEN TG_NARGS > 2 THEN format('array_agg(DISTINCT c.%I)', TG_ARGV[2]) ELSE 'NULL::text[]' END);
  RETURN NULL;
END $$;

-- A document whose lines name its items (a count, a transfer, a waste entry, an order): inserted, it
-- reaches no item by itself (its lines, written with it, are logged with theirs); updated, it reaches the
-- items of its lines (TG_ARGV: the lines' table, its column naming the document, its column naming the
-- item); deleted, any item.
CREATE FUNCTION log_document_tenant_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO tenant_changes (account_id, environment, item_ids) SELECT DISTINCT account_id, environment, '{}'::text[] FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO tenant_changes (account_id, environment) SELECT DISTINCT account_id, environment FROM old_rows;
  ELSE
    EXECUTE format('INSERT INTO tenant_changes (account_id, environment, item_ids)
      SELECT d.account_id, d.environment, coalesce(array_agg(DISTINCT l.%3$I) FILTER (WHERE l.%3$I IS NOT NULL), ''{}'')
      FROM new_rows d LEFT JOIN %1$I l ON l.%2$I = d.id GROUP BY 1, 2', TG_ARGV[0], TG_ARGV[1], TG_ARGV[2]);
  END IF;
  RETURN NULL;
END $$;

-- An update of a table whose rows also hold present state (log_present_state_changes): TG_ARGV[0] lists
-- those columns, TG_ARGV[1] the columns read only with their own row's item (its cost, its reorder point),
-- TG_ARGV[2] the column naming the row's item, if any. Present state only: 'infinity'. Present state or
-- the item's own columns only: the items updated. Anything else (a name, a unit, a category: what scopes a
-- report or matches a POS name among the items): any time, any item.
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
    INSERT INTO tenant_changes (account_id, environment, rows_from)
    SELECT DISTINCT account_id, environment, CASE WHEN present_only THEN 'infinity'::timestamptz END FROM new_rows;
  END IF;
  RETURN NULL;
END $$;

-- Tables of present state that neither a report about a period nor one of items reads, logged as a change
-- of the present naming no item (only an answer without a horizon, the forecast, computes again): the
-- POS's catalogue (pos_items: what each POS item is called now, when it was last seen; sale lines carry
-- their own names), an order's dispatch to its distributor, and the corrections waiting for the POS line
-- they correct. A drink new on the menu no longer makes every cached variance report compute whole with
-- its first sale (the line itself, unmapped, reaches what it can), nor does an order sent.
CREATE FUNCTION log_present_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO tenant_changes (account_id, environment, rows_from, item_ids) SELECT DISTINCT account_id, environment, 'infinity'::timestamptz, '{}'::text[] FROM old_rows;
  ELSE
    INSERT INTO tenant_changes (account_id, environment, rows_from, item_ids) SELECT DISTINCT account_id, environment, 'infinity'::timestamptz, '{}'::text[] FROM new_rows;
  END IF;
  RETURN NULL;
END $$;

-- The stored count windows' updates (log_count_window_changes), with their items.
CREATE OR REPLACE FUNCTION log_count_window_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tenant_changes (account_id, environment, item_ids)
  SELECT coalesce(n.account_id, o.account_id), coalesce(n.environment, o.environment), array_agg(DISTINCT coalesce(n.item_id, o.item_id))
  FROM new_rows n FULL JOIN old_rows o
    ON (o.item_id, o.opening_count_id, o.closing_count_id) = (n.item_id, n.opening_count_id, n.closing_count_id)
  WHERE n.item_id IS NULL OR o.item_id IS NULL
    OR (o.account_id, o.environment, o.opening_at, o.closing_at, o.deliveries, o.usage_units, o.sale_lines, o.transfers_in, o.transfers_out,
      o.waste_units, o.waste_cost) IS DISTINCT FROM (n.account_id, n.environment, n.opening_at, n.closing_at, n.deliveries, n.usage_units,
      n.sale_lines, n.transfers_in, n.transfers_out, n.waste_units, n.waste_cost)
    OR (o.lowest_net IS NOT NULL AND o.lowest_net IS DISTINCT FROM n.lowest_net)
  GROUP BY 1, 2;
  RETURN NULL;
END $$;

-- Each table's logging triggers made again: the events named, each with the transition tables it has.
DO $$
DECLARE
  logged record;
  event text;
  EVERY_EVENT CONSTANT text[] := ARRAY['insert', 'update', 'delete'];
BEGIN
  FOR logged IN VALUES
    -- Timed rows and the items they reach. A sale line that depleted stock reaches items only through its
    -- usage rows, written with it (unmapped lines are matched among every item of their location; a line
    -- updated or deleted is logged for any item), and a POS item's daily sales only what is read beside
    -- the items (the revenue data quality reads).
    ('stock_sale_usage', EVERY_EVENT, 'log_timed_tenant_changes(''sold_at'', ''rows_from'', ''array_agg(DISTINCT item_id)'')'),
    ('stock_movements', EVERY_EVENT, 'log_timed_tenant_changes(''occurred_at'', ''rows_from'', ''array_agg(DISTINCT item_id)'')'),
    ('analytics_item_days', EVERY_EVENT, 'log_timed_tenant_changes(''business_day'', ''days_from'', ''array_agg(DISTINCT item_id)'')'),
    ('analytics_pos_item_days', EVERY_EVENT, 'log_timed_tenant_changes(''business_day'', ''days_from'', ''''''{}''''::text[]'')'),
    ('pos_sales', ARRAY['insert'], 'log_timed_tenant_changes(''sold_at'', ''rows_from'', ''CASE WHEN bool_and(depleted) THEN ''''{}''''::text[] END'')'),
    -- Rows that name an item, child rows that do, documents, and present state naming no item.
    ('inventory_item_costs', EVERY_EVENT, 'log_item_tenant_changes()'),
    ('stock_operation_lines', EVERY_EVENT, 'log_item_tenant_changes()'),
    ('analytics_count_windows', ARRAY['delete'], 'log_item_tenant_changes()'),
    ('demand_forecasts', EVERY_EVENT, 'log_item_tenant_changes(''present'')'),
    ('inventory_count_lines', EVERY_EVENT, 'log_child_tenant_changes(''inventory_counts'', ''count_id'', ''item_id'')'),
    ('order_lines', EVERY_EVENT, 'log_child_tenant_changes(''orders'', ''order_id'', ''inventory_item_id'')'),
    ('inventory_counts', EVERY_EVENT, 'log_document_tenant_changes(''inventory_count_lines'', ''count_id'', ''item_id'')'),
    ('inventory_transfers', EVERY_EVENT, 'log_document_tenant_changes(''stock_operation_lines'', ''operation_id'', ''item_id'')'),
    ('inventory_waste', EVERY_EVENT, 'log_document_tenant_changes(''stock_operation_lines'', ''operation_id'', ''item_id'')'),
    ('orders', EVERY_EVENT, 'log_document_tenant_changes(''order_lines'', ''order_id'', ''inventory_item_id'')'),
    ('pos_items', EVERY_EVENT, 'log_present_changes()'),
    ('purchase_order_dispatches', EVERY_EVENT, 'log_present_changes()'),
    ('pos_pending_corrections', EVERY_EVENT, 'log_present_changes()'),
    -- Updates: present state, an item's own columns, and the column naming the item.
    ('inventory_items', ARRAY['update'], 'log_present_state_changes(''quantity,last_updated,anchored_at'', ''cost_per_unit,reorder_point,case_size'', ''id'')'),
    ('pos_connections', ARRAY['update'], 'log_present_state_changes(''sales_cursor,last_sync,next_sync_at,status'', '''', '''')'),
    ('pos_staff', ARRAY['update'], 'log_present_state_changes(''last_synced'', '''', '''')')
  LOOP
    FOREACH event IN ARRAY logged.column2 LOOP
      EXECUTE format('DROP TRIGGER %I ON %I', logged.column1 || '_log_' || event, logged.column1);
      EXECUTE format('CREATE TRIGGER %I AFTER %s ON %I REFERENCING %s FOR EACH STATEMENT EXECUTE FUNCTION %s', logged.column1 || '_log_' || event,
        upper(event), logged.column1, CASE event WHEN 'insert' THEN 'NEW TABLE AS new_rows' WHEN 'delete' THEN 'OLD TABLE AS old_rows'
          ELSE 'OLD TABLE AS old_rows NEW TABLE AS new_rows' END, logged.column3);
    END LOOP;
  END LOOP;
END $$;
