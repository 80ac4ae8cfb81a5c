-- POS integration: connections, sync runs, POS items and their mappings, sale lines, staff.

CREATE TABLE pos_connections (
  id                 text PRIMARY KEY,
  account_id         text NOT NULL REFERENCES accounts (id),
  environment        text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  pos_type           text NOT NULL,
  name               text NOT NULL,
  -- Where synced sales happened (a location id of the tenant).
  location_id        text NOT NULL,
  status             text NOT NULL CHECK (status IN ('active', 'inactive', 'error')),
  sync_frequency     text NOT NULL CHECK (sync_frequency IN ('realtime', 'hourly', 'daily')),
  -- AES-256-GCM under the secret key, bound to the connection id; never leaves the service.
  credentials        text NOT NULL,
  -- End of the sales window of the last good run: the next incremental run starts there.
  sales_cursor       timestamptz,
  last_sync          timestamptz,
  next_sync_at       timestamptz NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  deleted_at         timestamptz
);
CREATE INDEX pos_connections_tenant ON pos_connections (account_id, environment, created_at) WHERE deleted_at IS NULL;
CREATE INDEX pos_connections_due ON pos_connections (next_sync_at) WHERE deleted_at IS NULL AND status <> 'inactive';

CREATE TABLE pos_sync_runs (
  id                   text PRIMARY KEY,
  account_id           text NOT NULL,
  environment          text NOT NULL,
  connection_id        text NOT NULL REFERENCES pos_connections (id),
  sync_type            text NOT NULL CHECK (sync_type IN ('full', 'incremental', 'sales_only')),
  status               text NOT NULL CHECK (status IN ('processing', 'completed', 'failed')),
  triggered_by         text NOT NULL,
  started_at           timestamptz NOT NULL DEFAULT now(),
  estimated_completion timestamptz NOT NULL,
  -- Set when a worker takes the run; the worker touches heartbeat_at while it runs.
  claimed_at           timestamptz,
  heartbeat_at         timestamptz,
  completed_at         timestamptz,
  duration_ms          integer,
  sales_synced         integer,
  products_synced      integer,
  variance_detected    integer,
  error_code           text,
  error_message        text,
  retry_after          integer
);
-- One running sync per connection, enforced here and not only by a check (409 sync_in_progress).
CREATE UNIQUE INDEX pos_sync_runs_one_running ON pos_sync_runs (connection_id) WHERE status = 'processing';
CREATE INDEX pos_sync_runs_connection ON pos_sync_runs (connection_id, started_at);
CREATE INDEX pos_sync_runs_unclaimed ON pos_sync_runs (started_at) WHERE status = 'processing' AND claimed_at IS NULL;

-- Every item a POS reported (catalog or sales) or a mapping named; suggestions come from auto-map.
CREATE TABLE pos_items (
  connection_id         text NOT NULL REFERENCES pos_connections (id),
  pos_item_id           text NOT NULL,
  account_id            text NOT NULL,
  environment           text NOT NULL,
  name                  text NOT NULL,
  category              text,
  sku                   text,
  price                 numeric(16, 4),
  last_synced           timestamptz,
  suggested_item_id     text,
  suggested_confidence  numeric(5, 4),
  PRIMARY KEY (connection_id, pos_item_id)
);

CREATE TABLE pos_mappings (
  connection_id      text NOT NULL REFERENCES pos_connections (id),
  pos_item_id        text NOT NULL,
  account_id         text NOT NULL,
  environment        text NOT NULL,
  inventory_item_id  text NOT NULL REFERENCES inventory_items (id),
  -- Amount of the inventory item per POS unit, in conversion_unit.
  conversion_factor  numeric(16, 4) NOT NULL CHECK (conversion_factor > 0),
  conversion_unit    text NOT NULL,
  created_by         text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, pos_item_id)
);
CREATE INDEX pos_mappings_item ON pos_mappings (inventory_item_id);

-- Sold lines, synced or imported; each (connection, line id) once, so re-syncing never double counts.
CREATE TABLE pos_sales (
  sequence       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id     text NOT NULL,
  environment    text NOT NULL,
  -- No foreign key: lines are written only by their own connection's runs and imports, connections are
  -- soft-deleted, and the per-row check was a quarter of the ingest's database time (docs/benchmarks.md).
  connection_id  text NOT NULL,
  line_id        text NOT NULL,
  -- The sync run (sync_…) or import (imp_…) that brought the line.
  source_id      text NOT NULL,
  location_id    text NOT NULL,
  pos_item_id    text NOT NULL,
  name           text NOT NULL,
  quantity       numeric(16, 4) NOT NULL,
  unit_price     numeric(16, 4) NOT NULL,
  sold_at        timestamptz NOT NULL,
  staff_id       text,
  staff_name     text,
  check_id       text,
  tip            numeric(16, 4),
  -- Whether the line has depleted stock (its POS item was mapped when it was applied).
  depleted       boolean NOT NULL,
  UNIQUE (connection_id, line_id)
);
CREATE INDEX pos_sales_source ON pos_sales (source_id, pos_item_id);
CREATE INDEX pos_sales_undepleted ON pos_sales (connection_id, pos_item_id, sold_at) WHERE NOT depleted;
CREATE INDEX pos_sales_tenant_time ON pos_sales (account_id, environment, sold_at);

CREATE TABLE pos_staff (
  connection_id  text NOT NULL REFERENCES pos_connections (id),
  staff_id       text NOT NULL,
  account_id     text NOT NULL,
  environment    text NOT NULL,
  name           text NOT NULL,
  role           text,
  last_synced    timestamptz NOT NULL,
  PRIMARY KEY (connection_id, staff_id)
);
