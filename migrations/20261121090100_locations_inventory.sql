-- Locations, inventory items, the stock ledger and inventory counts.

CREATE TABLE locations (
  account_id          text NOT NULL REFERENCES accounts (id),
  environment         text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  id                  text NOT NULL,
  name                text NOT NULL,
  timezone            text NOT NULL DEFAULT 'UTC',
  business_day_cutoff text NOT NULL DEFAULT '04:00',
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, environment, id)
);

-- Every account starts with a main_bar location in both environments, so the quick start works.
INSERT INTO locations (account_id, environment, id, name)
SELECT id, env, 'main_bar', 'Main bar' FROM accounts CROSS JOIN (VALUES ('production'), ('sandbox')) AS e (env);

CREATE TABLE inventory_items (
  id            text PRIMARY KEY,
  account_id    text NOT NULL,
  environment   text NOT NULL,
  location_id   text NOT NULL,
  name          text NOT NULL,
  sku           text NOT NULL,
  category      text NOT NULL,
  -- Theoretical stock may go below zero when sales deplete it before a delivery is recorded.
  quantity      numeric(16, 4) NOT NULL,
  unit          text NOT NULL,
  size_ml       integer,
  case_size     integer,
  reorder_point numeric(16, 4) NOT NULL DEFAULT 0,
  cost_per_unit numeric(16, 4) NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_updated  timestamptz NOT NULL DEFAULT now(),
  -- Soft delete: the ledger and past orders keep pointing at the item. location_id has no foreign key,
  -- so a location can go once no live item uses it (the service checks).
  deleted_at    timestamptz
);
CREATE UNIQUE INDEX inventory_items_sku ON inventory_items (account_id, environment, sku) WHERE deleted_at IS NULL;
CREATE INDEX inventory_items_by_location ON inventory_items (account_id, environment, location_id, name)
  WHERE deleted_at IS NULL;
CREATE INDEX inventory_items_by_name ON inventory_items (account_id, environment, name) WHERE deleted_at IS NULL;

-- The append-only stock ledger: every change of an item's quantity is one row.
CREATE TABLE stock_movements (
  sequence        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id      text NOT NULL,
  environment     text NOT NULL,
  item_id         text NOT NULL REFERENCES inventory_items (id),
  kind            text NOT NULL CHECK (kind IN ('count', 'adjustment', 'batch', 'delivery', 'sale', 'transfer')),
  delta           numeric(16, 4) NOT NULL,
  quantity_before numeric(16, 4) NOT NULL,
  quantity_after  numeric(16, 4) NOT NULL,
  actor           text NOT NULL,
  reference_id    text,
  occurred_at     timestamptz NOT NULL,
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (quantity_after = quantity_before + delta)
);
CREATE INDEX stock_movements_item ON stock_movements (item_id, occurred_at);

CREATE TABLE inventory_counts (
  id            text PRIMARY KEY,
  account_id    text NOT NULL,
  environment   text NOT NULL,
  location_id   text NOT NULL,
  counted_by    text NOT NULL,
  counted_at    timestamptz NOT NULL,
  items_updated integer NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inventory_counts_location ON inventory_counts (account_id, environment, location_id, counted_at);

-- One row per counted item; analytics reads usage between counts from these.
CREATE TABLE inventory_count_lines (
  count_id  text NOT NULL REFERENCES inventory_counts (id),
  item_id   text NOT NULL REFERENCES inventory_items (id),
  expected  numeric(16, 4) NOT NULL,
  actual    numeric(16, 4) NOT NULL,
  notes     text,
  PRIMARY KEY (count_id, item_id)
);
CREATE INDEX inventory_count_lines_item ON inventory_count_lines (item_id);
