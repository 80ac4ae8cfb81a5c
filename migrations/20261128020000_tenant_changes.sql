-- The change log that tells a cached report whether anything of its tenant changed since it was computed
-- (src/platform/tenant-changes.ts, docs/decisions.md "Report cache"). Every statement that writes a table
-- a report could read adds one row per tenant it touched, stamped with its transaction's id: a report
-- keeps the snapshot (pg_current_snapshot()) taken before its first read, and a later request looks for a
-- row of the tenant whose transaction that snapshot does not see. Rows are only ever inserted, each by
-- the writing transaction itself: no row is shared between writers, so nothing waits on another.
CREATE TABLE tenant_changes (
  account_id text NOT NULL,
  environment text NOT NULL,
  changed_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  changed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tenant_changes_by_tenant ON tenant_changes (account_id, environment, changed_xid);

-- The statement trigger on every table with tenant columns (static statements: their plans are kept).
CREATE FUNCTION log_tenant_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO tenant_changes (account_id, environment) SELECT DISTINCT account_id, environment FROM old_rows;
  ELSE
    INSERT INTO tenant_changes (account_id, environment) SELECT DISTINCT account_id, environment FROM new_rows;
  END IF;
  RETURN NULL;
END $$;

-- The same for a child table without tenant columns, whose tenant is its parent's: TG_ARGV names the
-- parent table and the key column naming it. A child row deleted with its parent (ON DELETE CASCADE)
-- finds no parent: the parent's own trigger logs it.
CREATE FUNCTION log_child_tenant_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO tenant_changes (account_id, environment) SELECT DISTINCT p.account_id, p.environment FROM %I c JOIN %I p ON p.id = c.%I',
    CASE WHEN TG_OP = 'DELETE' THEN 'old_rows' ELSE 'new_rows' END, TG_ARGV[0], TG_ARGV[1]);
  RETURN NULL;
END $$;

-- The update trigger of the stored count windows (below): an update that only adds the lowest stock a
-- walk measured to a window (a report filling in its own memo) changes no answer; any other is logged.
CREATE FUNCTION log_count_window_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tenant_changes (account_id, environment)
  SELECT DISTINCT coalesce(n.account_id, o.account_id), coalesce(n.environment, o.environment)
  FROM new_rows n FULL JOIN old_rows o
    ON (o.item_id, o.opening_count_id, o.closing_count_id) = (n.item_id, n.opening_count_id, n.closing_count_id)
  WHERE n.item_id IS NULL OR o.item_id IS NULL
    OR (o.account_id, o.environment, o.opening_at, o.closing_at, o.deliveries, o.usage_units, o.sale_lines, o.transfers_in, o.transfers_out,
      o.waste_units, o.waste_cost) IS DISTINCT FROM (n.account_id, n.environment, n.opening_at, n.closing_at, n.deliveries, n.usage_units,
      n.sale_lines, n.transfers_in, n.transfers_out, n.waste_units, n.waste_cost)
    OR (o.lowest_net IS NOT NULL AND o.lowest_net IS DISTINCT FROM n.lowest_net);
  RETURN NULL;
END $$;

-- Every table of tenant data a report could read, directly or through another domain's functions. Left
-- out, as logs and bookkeeping no report reads: api_keys, idempotency_records, outbox_events, webhooks,
-- webhook_deliveries, webhook_delivery_attempts, forecast_refits (the refit jobs; only the
-- forecast_unavailable error reads them), pos_sync_runs, pos_listing_checkpoints, pos_app_push_setups,
-- pos_sale_line_keys (written with the lines they key). Of analytics_count_windows, the windows a
-- variance report stores for the next one (a memo of the counts, movements and usage logged here),
-- deletes and updates are logged, but not what a report stores of its own answer: the windows it
-- inserts, the lowest stock it adds (log_count_window_changes); else every first report would
-- invalidate itself. On a partitioned table (pos_sales,
-- stock_movements, stock_sale_usage) the parent's triggers see the rows of every partition.
DO $$
DECLARE
  logged record;
  event record;
BEGIN
  FOR logged IN
    SELECT name, 'log_tenant_changes()' AS function FROM unnest(ARRAY['analytics_item_days', 'analytics_pos_item_days', 'analytics_unmapped_sale_days',
      'demand_forecasts', 'distributors', 'inventory_counts', 'inventory_item_costs', 'inventory_items', 'inventory_transfers',
      'inventory_waste', 'locations', 'orders', 'pos_connections', 'pos_items', 'pos_mappings', 'pos_pending_corrections', 'pos_sales',
      'pos_staff', 'purchase_order_dispatches', 'recipe_ingredients', 'recipes', 'settings', 'stock_movements', 'stock_operation_lines',
      'stock_sale_usage']) AS name
    -- Children without tenant columns, through their parent table and the key column naming it.
    UNION ALL VALUES ('inventory_count_lines', 'log_child_tenant_changes(''inventory_counts'', ''count_id'')'),
      ('order_lines', 'log_child_tenant_changes(''orders'', ''order_id'')'),
      ('distributor_catalog_entries', 'log_child_tenant_changes(''distributors'', ''distributor_id'')')
  LOOP
    FOR event IN VALUES ('insert', 'INSERT', 'NEW TABLE AS new_rows'), ('update', 'UPDATE', 'NEW TABLE AS new_rows'), ('delete', 'DELETE', 'OLD TABLE AS old_rows') LOOP
      EXECUTE format('CREATE TRIGGER %I AFTER %s ON %I REFERENCING %s FOR EACH STATEMENT EXECUTE FUNCTION %s',
        logged.name || '_log_' || event.column1, event.column2, logged.name, event.column3, logged.function);
    END LOOP;
  END LOOP;
  CREATE TRIGGER analytics_count_windows_log_update AFTER UPDATE ON analytics_count_windows
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION log_count_window_changes();
  CREATE TRIGGER analytics_count_windows_log_delete AFTER DELETE ON analytics_count_windows
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION log_tenant_changes();
END $$;
