-- What a change can reach (docs/decisions.md "Report cache"): until now every logged change made every
-- cached report of its tenant compute again, so a bar that syncs its POS every few minutes during service
-- recomputed last month's variance report after each sync, though nothing sold tonight can change it.
-- A change row now carries the earliest moment (rows_from) or business day (days_from) of the rows its
-- statement wrote, where those rows are facts of a moment; a report about a period that ended before
-- that moment (and day) is not changed by it. Both null: the change can reach any answer, as before.
-- rows_from 'infinity': the statement changed only the present state of its rows (an item's stock on
-- hand, when a POS item or member of staff was last synced, a connection's cursor, last run and status),
-- which only answers about the present read (the forecast, which reads stock on hand).
ALTER TABLE tenant_changes ADD COLUMN rows_from timestamptz, ADD COLUMN days_from date;
DROP INDEX tenant_changes_by_tenant;
CREATE INDEX tenant_changes_by_tenant ON tenant_changes (account_id, environment, changed_xid) INCLUDE (rows_from, days_from);

-- Rows that are facts of a moment or a business day (sale lines and their stock usage by sale time, stock
-- movements by the time they happened, analytics' daily rollups by business day): the earliest among the
-- rows written and, on an update, among the rows as they were. TG_ARGV[0] names the rows' column,
-- TG_ARGV[1] the log's (rows_from or days_from). A delivery, transfer, waste or count also writes its own
-- table, which is logged without a bound.
CREATE FUNCTION log_timed_tenant_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO tenant_changes (account_id, environment, %2$I) SELECT account_id, environment, min(%1$I) FROM (%3$s) AS touched GROUP BY 1, 2',
    TG_ARGV[0], TG_ARGV[1], CASE TG_OP WHEN 'INSERT' THEN 'SELECT * FROM new_rows' WHEN 'DELETE' THEN 'SELECT * FROM old_rows'
      ELSE 'SELECT * FROM new_rows UNION ALL SELECT * FROM old_rows' END);
  RETURN NULL;
END $$;

-- An update of a table whose rows also hold present state (the arguments name those columns): when
-- every row is as it was but for them, a change of the present ('infinity'), else without a bound. The
-- rows without those columns are compared as two multisets: each row keeps its key, so they are equal
-- only when no row changed anything else. Inserts and deletes are logged without a bound (log_tenant_changes).
CREATE FUNCTION log_present_state_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tenant_changes (account_id, environment, rows_from)
  SELECT DISTINCT account_id, environment,
    CASE WHEN NOT EXISTS (SELECT to_jsonb(n) - TG_ARGV FROM new_rows n EXCEPT ALL SELECT to_jsonb(o) - TG_ARGV FROM old_rows o)
      THEN 'infinity'::timestamptz END
  FROM new_rows;
  RETURN NULL;
END $$;

DO $$
DECLARE
  bounded record;
  event record;
BEGIN
  FOR bounded IN VALUES ('pos_sales', 'sold_at, rows_from'), ('stock_sale_usage', 'sold_at, rows_from'),
    ('stock_movements', 'occurred_at, rows_from'), ('analytics_item_days', 'business_day, days_from'),
    ('analytics_pos_item_days', 'business_day, days_from'), ('analytics_unmapped_sale_days', 'business_day, days_from')
  LOOP
    FOR event IN VALUES ('insert', 'INSERT', 'NEW TABLE AS new_rows'), ('update', 'UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'),
      ('delete', 'DELETE', 'OLD TABLE AS old_rows') LOOP
      EXECUTE format('DROP TRIGGER %I ON %I', bounded.column1 || '_log_' || event.column1, bounded.column1);
      EXECUTE format('CREATE TRIGGER %I AFTER %s ON %I REFERENCING %s FOR EACH STATEMENT EXECUTE FUNCTION log_timed_tenant_changes(%s)',
        bounded.column1 || '_log_' || event.column1, event.column2, bounded.column1, event.column3, bounded.column2);
    END LOOP;
  END LOOP;
  FOR bounded IN VALUES ('inventory_items', '''quantity'', ''last_updated'''),
    ('pos_connections', '''sales_cursor'', ''last_sync'', ''next_sync_at'', ''status'''),
    ('pos_items', '''last_synced'''), ('pos_staff', '''last_synced''')
  LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', bounded.column1 || '_log_update', bounded.column1);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION log_present_state_changes(%s)',
      bounded.column1 || '_log_update', bounded.column1, bounded.column2);
  END LOOP;
END $$;
