-- The tables that grow with every sale are partitioned by month of their sale or movement time
-- (docs/operations.md, "Partitions and archive"): pos_sales (sold_at), stock_sale_usage (sold_at: one
-- row per sale line and item it took from, the largest) and stock_movements (occurred_at: the ledger).
-- Months are UTC months; each table has a DEFAULT partition, so a line in a month without a partition
-- (back-dated, or before the service made it) is always accepted, and maintain_month_partitions moves it
-- into its month. Old months can then be detached or dropped whole (`barstock archive`).
--
-- A unique constraint of a partitioned table must hold its partition key, so (connection_id, line_id)
-- can no longer be unique in pos_sales itself: a line re-sent with a corrected sale time would land in
-- another month. The key table pos_sale_line_keys holds every (connection, line id) ever stored, also of
-- archived months, and every insert claims its lines' keys first and stores only the lines it claimed,
-- as ON CONFLICT DO NOTHING did. Deleting lines (a failed run's) frees their keys.
--
-- PostgreSQL 15 has no identity columns on partitioned tables (17 has): the sequences become plain
-- sequence defaults, continuing the numbers. Nothing holds a foreign key to these tables.

-- Every partition of `parent` for the UTC month of `month`: made if missing, with the rows of the DEFAULT
-- partition that belong to it moved into it first (a DEFAULT partition holding rows of a range refuses a
-- new partition for that range). Answers whether it made one.
CREATE FUNCTION ensure_month_partition(parent text, month date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  first_day date := date_trunc('month', month)::date;
  lower_bound timestamptz := first_day::timestamp AT TIME ZONE 'UTC';
  upper_bound timestamptz := (first_day + interval '1 month') AT TIME ZONE 'UTC';
  partition_name text := parent || '_' || to_char(first_day, 'YYYY_MM');
  default_name text := parent || '_default';
  key_column text := substring(pg_get_partkeydef(parent::regclass) FROM '\((\w+)\)');
BEGIN
  IF to_regclass(partition_name) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', partition_name, parent);
  -- Inserts wait meanwhile, so no row of the month can reach the DEFAULT partition before the attach.
  EXECUTE format('LOCK TABLE %I IN EXCLUSIVE MODE', default_name);
  -- Straight from partition to table: the parent's statement triggers (rollups, keys) do not fire, the
  -- rows only change place.
  EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
    default_name, key_column, key_column, partition_name) USING lower_bound, upper_bound;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, partition_name, lower_bound, upper_bound);
  RETURN true;
END $$;

-- The partitioned tables: every table with a DEFAULT partition named <table>_default.
CREATE FUNCTION month_partitioned_tables() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT p.relname::text FROM pg_partitioned_table t
  JOIN pg_class p ON p.oid = t.partrelid
  JOIN pg_namespace n ON n.oid = p.relnamespace AND n.nspname = current_schema()
  WHERE to_regclass(quote_ident(p.relname || '_default')) IS NOT NULL
  ORDER BY 1
$$;

-- What the service runs at start and daily: every partitioned table gets its partitions from last month
-- to `months_ahead` months after this one, and the rows waiting in its DEFAULT partition move into
-- partitions of their months. Answers the partitions made. One maintainer at a time.
CREATE FUNCTION maintain_month_partitions(months_ahead integer) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  parent text;
  month date;
BEGIN
  PERFORM pg_advisory_xact_lock(7362514402);
  FOR parent IN SELECT month_partitioned_tables() LOOP
    FOR month IN
      SELECT generate_series(date_trunc('month', now() AT TIME ZONE 'UTC') - interval '1 month',
        date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => months_ahead), interval '1 month')::date
      UNION
      SELECT DISTINCT date_trunc('month', waiting.at AT TIME ZONE 'UTC')::date
      FROM month_partition_waiting_times(parent) AS waiting (at)
      ORDER BY 1
    LOOP
      IF ensure_month_partition(parent, month) THEN
        RETURN NEXT parent || '_' || to_char(month, 'YYYY_MM');
      END IF;
    END LOOP;
  END LOOP;
END $$;

-- The partition-key times of the rows in `parent`'s DEFAULT partition.
CREATE FUNCTION month_partition_waiting_times(parent text) RETURNS SETOF timestamptz
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT %I FROM %I', substring(pg_get_partkeydef(parent::regclass) FROM '\((\w+)\)'), parent || '_default');
END $$;

-- The months the rows of an unpartitioned table fall in, to make their partitions before copying.
CREATE TEMPORARY TABLE months_to_make (parent text, month date);

-- pos_sales -------------------------------------------------------------------------------------------

ALTER TABLE pos_sales RENAME TO pos_sales_unpartitioned;
CREATE TABLE pos_sales (LIKE pos_sales_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (sold_at);
CREATE SEQUENCE pos_sales_line_sequence OWNED BY pos_sales.sequence;
ALTER TABLE pos_sales ALTER COLUMN sequence SET DEFAULT nextval('pos_sales_line_sequence');
CREATE TABLE pos_sales_default PARTITION OF pos_sales DEFAULT;
INSERT INTO months_to_make SELECT DISTINCT 'pos_sales', date_trunc('month', sold_at AT TIME ZONE 'UTC')::date FROM pos_sales_unpartitioned;

-- stock_sale_usage ------------------------------------------------------------------------------------

ALTER TABLE stock_sale_usage RENAME TO stock_sale_usage_unpartitioned;
CREATE TABLE stock_sale_usage (LIKE stock_sale_usage_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (sold_at);
CREATE SEQUENCE stock_sale_usage_row_sequence OWNED BY stock_sale_usage.sequence;
ALTER TABLE stock_sale_usage ALTER COLUMN sequence SET DEFAULT nextval('stock_sale_usage_row_sequence');
CREATE TABLE stock_sale_usage_default PARTITION OF stock_sale_usage DEFAULT;
INSERT INTO months_to_make SELECT DISTINCT 'stock_sale_usage', date_trunc('month', sold_at AT TIME ZONE 'UTC')::date FROM stock_sale_usage_unpartitioned;

-- stock_movements -------------------------------------------------------------------------------------

ALTER TABLE stock_movements RENAME TO stock_movements_unpartitioned;
CREATE TABLE stock_movements (LIKE stock_movements_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (occurred_at);
CREATE SEQUENCE stock_movements_row_sequence OWNED BY stock_movements.sequence;
ALTER TABLE stock_movements ALTER COLUMN sequence SET DEFAULT nextval('stock_movements_row_sequence');
CREATE TABLE stock_movements_default PARTITION OF stock_movements DEFAULT;
INSERT INTO months_to_make SELECT DISTINCT 'stock_movements', date_trunc('month', occurred_at AT TIME ZONE 'UTC')::date FROM stock_movements_unpartitioned;

-- The months of the existing rows, then the rows, straight into them; then the indexes, constraints and
-- triggers, so the copy neither builds indexes row by row nor counts the rows into the rollups again.

SELECT ensure_month_partition(parent, month) FROM months_to_make ORDER BY parent, month;
SELECT maintain_month_partitions(3);

INSERT INTO pos_sales SELECT * FROM pos_sales_unpartitioned;
INSERT INTO stock_sale_usage SELECT * FROM stock_sale_usage_unpartitioned;
INSERT INTO stock_movements SELECT * FROM stock_movements_unpartitioned;
SELECT setval('pos_sales_line_sequence', coalesce((SELECT max(sequence) FROM pos_sales_unpartitioned), 0) + 1, false);
SELECT setval('stock_sale_usage_row_sequence', coalesce((SELECT max(sequence) FROM stock_sale_usage_unpartitioned), 0) + 1, false);
SELECT setval('stock_movements_row_sequence', coalesce((SELECT max(sequence) FROM stock_movements_unpartitioned), 0) + 1, false);
DROP TABLE pos_sales_unpartitioned, stock_sale_usage_unpartitioned, stock_movements_unpartitioned;

-- The line keys: every stored line's, also of months archived later, with where the line is (its
-- sequence and sale time: the primary key of pos_sales, so a line is found by its id through one
-- partition). Every insert into pos_sales claims its lines' keys in the same statement first and
-- stores only the lines it claimed (src/pos/sales.repository.ts): a set-based claim, as the unique
-- constraint's ON CONFLICT DO NOTHING was; a trigger per row cost 0.80-0.83 of the ingest rate.
CREATE TABLE pos_sale_line_keys (
  connection_id text NOT NULL,
  line_id       text NOT NULL,
  sequence      bigint NOT NULL,
  sold_at       timestamptz NOT NULL,
  PRIMARY KEY (connection_id, line_id)
);
INSERT INTO pos_sale_line_keys (connection_id, line_id, sequence, sold_at) SELECT connection_id, line_id, sequence, sold_at FROM pos_sales;

-- Deleted lines (a failed run's) free their keys, so the run's retry stores them. Statements on a
-- partition itself (moving rows between partitions) do not fire it; detaching or dropping a partition
-- deletes nothing, so archived lines keep their keys.
CREATE FUNCTION pos_sales_free_line_keys() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM pos_sale_line_keys k USING old_rows o WHERE k.connection_id = o.connection_id AND k.line_id = o.line_id;
  RETURN NULL;
END $$;
CREATE TRIGGER pos_sales_line_keys_free AFTER DELETE ON pos_sales REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION pos_sales_free_line_keys();

ALTER TABLE pos_sales ADD PRIMARY KEY (sequence, sold_at);
CREATE INDEX pos_sales_source ON pos_sales (source_id, pos_item_id);
CREATE INDEX pos_sales_undepleted ON pos_sales (connection_id, pos_item_id, sold_at) WHERE NOT depleted;
CREATE INDEX pos_sales_tenant_time ON pos_sales (account_id, environment, sold_at);
CREATE INDEX pos_sales_location_time ON pos_sales (account_id, environment, location_id, sold_at);
CREATE INDEX pos_sales_unmapped_time ON pos_sales (account_id, environment, location_id, sold_at) WHERE NOT depleted;
CREATE TRIGGER pos_sales_rollup_insert AFTER INSERT ON pos_sales REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_sales();
CREATE TRIGGER pos_sales_rollup_delete AFTER DELETE ON pos_sales REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_sales();
CREATE TRIGGER pos_sales_rollup_update AFTER UPDATE ON pos_sales REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_sales();

-- A line's usage rows all carry its sale time, so (sale_line, item_id, sold_at) is as unique as (sale_line, item_id) was.
ALTER TABLE stock_sale_usage ADD PRIMARY KEY (sequence, sold_at);
ALTER TABLE stock_sale_usage ADD UNIQUE (sale_line, item_id, sold_at);
CREATE INDEX stock_sale_usage_item_time ON stock_sale_usage (item_id, sold_at) INCLUDE (units, applied);
CREATE INDEX stock_sale_usage_location_time ON stock_sale_usage (account_id, environment, location_id, sold_at);
CREATE INDEX stock_sale_usage_batch ON stock_sale_usage (batch_id);
CREATE INDEX stock_sale_usage_cross_location ON stock_sale_usage (account_id, environment, location_id, sold_at) WHERE location_id <> sale_location_id;
CREATE TRIGGER stock_sale_usage_rollup_insert AFTER INSERT ON stock_sale_usage REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_usage();
CREATE TRIGGER stock_sale_usage_rollup_delete AFTER DELETE ON stock_sale_usage REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_usage();
CREATE TRIGGER stock_sale_usage_forget_windows_insert AFTER INSERT ON stock_sale_usage REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_forget_count_windows();
CREATE TRIGGER stock_sale_usage_forget_windows_delete AFTER DELETE ON stock_sale_usage REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_forget_count_windows();

ALTER TABLE stock_movements ADD PRIMARY KEY (sequence, occurred_at);
ALTER TABLE stock_movements ADD FOREIGN KEY (item_id) REFERENCES inventory_items (id);
CREATE INDEX stock_movements_item ON stock_movements (item_id, occurred_at);
CREATE INDEX stock_movements_location_time ON stock_movements (account_id, environment, location_id, occurred_at);
CREATE INDEX stock_movements_anchors ON stock_movements (item_id, occurred_at) WHERE anchor;
CREATE TRIGGER stock_movements_rollup AFTER INSERT ON stock_movements REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_roll_deliveries();
CREATE TRIGGER stock_movements_forget_windows AFTER INSERT ON stock_movements REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_forget_count_windows();

DROP TABLE months_to_make;

-- The planner prices a lookup that does not name the month (a sale line by its sequence, a usage row by
-- its line) once per partition, so a report's query of a few thousand such lookups passed the JIT
-- thresholds (jit_above_cost 100,000, jit_optimize_above_cost 500,000): compiling and optimizing it took
-- 3.0 s of a 3.7 s variance report on PostgreSQL 15 (docs/benchmarks.md), where unpartitioned it stayed
-- under them. The service's queries are short: JIT off for this database. A role that may not alter the
-- database leaves it on, with a notice (docs/operations.md says how to set it).
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'barstock: could not turn JIT off for this database; run ALTER DATABASE % SET jit = off as its owner', current_database();
END $$;
