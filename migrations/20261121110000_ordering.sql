-- Distributors and their catalogs, orders and their lines, and the purchase-order e-mails sent on submit.

CREATE TABLE distributors (
  id                   text PRIMARY KEY,
  account_id           text NOT NULL REFERENCES accounts (id),
  environment          text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  name                 text NOT NULL,
  distributor_code     text NOT NULL,
  region               text NOT NULL,
  -- Personal data: never logged, never copied into error messages or dispatch errors.
  contact_email        text NOT NULL,
  min_order_amount     numeric(14, 2) NOT NULL DEFAULT 0,
  lead_time_days       integer NOT NULL DEFAULT 0 CHECK (lead_time_days >= 0),
  supported_categories text[] NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  -- Soft delete: past orders keep their distributor's name.
  deleted_at           timestamptz
);
CREATE INDEX distributors_tenant ON distributors (account_id, environment, name) WHERE deleted_at IS NULL;

-- What a distributor sells: one price per item and unit. A distributor without rows has no catalog.
CREATE TABLE distributor_catalog_entries (
  distributor_id     text NOT NULL REFERENCES distributors (id),
  inventory_item_id  text NOT NULL REFERENCES inventory_items (id),
  unit               text NOT NULL,
  unit_price         numeric(16, 4) NOT NULL CHECK (unit_price >= 0),
  available_quantity numeric(16, 4) CHECK (available_quantity >= 0),
  PRIMARY KEY (distributor_id, inventory_item_id, unit)
);

CREATE TABLE orders (
  id                  text PRIMARY KEY,
  account_id          text NOT NULL REFERENCES accounts (id),
  environment         text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  distributor_id      text NOT NULL REFERENCES distributors (id),
  location_id         text NOT NULL,
  status              text NOT NULL
    CHECK (status IN ('draft', 'submitted', 'processing', 'shipped', 'delivered', 'cancelled')),
  notes               text,
  total_amount        numeric(14, 2) NOT NULL,
  confirmation_number text,
  submitted_at        timestamptz,
  estimated_delivery  timestamptz,
  tracking_number     text,
  carrier             text,
  shipped_at          timestamptz,
  delivered_at        timestamptz,
  received_by         text,
  cancelled_at        timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_tenant_created ON orders (account_id, environment, created_at DESC, id DESC);
CREATE INDEX orders_tenant_status ON orders (account_id, environment, status);
CREATE UNIQUE INDEX orders_confirmation_number ON orders (account_id, environment, confirmation_number)
  WHERE confirmation_number IS NOT NULL;

CREATE TABLE order_lines (
  order_id               text NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  position               integer NOT NULL,
  inventory_item_id      text NOT NULL REFERENCES inventory_items (id),
  quantity               numeric(16, 4) NOT NULL CHECK (quantity > 0),
  unit                   text NOT NULL,
  -- Item units in one ordered unit (a case's size), fixed when the line is priced: receiving converts
  -- with the size that was ordered even if the item's case size changes later.
  units_per_ordered_unit numeric(16, 4) NOT NULL CHECK (units_per_ordered_unit > 0),
  unit_price             numeric(16, 4) NOT NULL,
  total                  numeric(14, 2) NOT NULL,
  quantity_received      numeric(16, 4),
  quantity_damaged       numeric(16, 4),
  PRIMARY KEY (order_id, position),
  UNIQUE (order_id, inventory_item_id)
);
CREATE INDEX order_lines_item ON order_lines (inventory_item_id);

-- The purchase order e-mailed to the distributor on submit: recorded in the submit transaction, sent by
-- a background worker that claims rows with FOR UPDATE SKIP LOCKED. A claimed row is 'sending' with
-- next_attempt_at as its lease: if the worker dies mid-send, the row is due again when the lease ends.
CREATE TABLE purchase_order_dispatches (
  id              text PRIMARY KEY,
  account_id      text NOT NULL REFERENCES accounts (id),
  environment     text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  order_id        text NOT NULL UNIQUE REFERENCES orders (id) ON DELETE CASCADE,
  status          text NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'skipped', 'cancelled')),
  attempts        integer NOT NULL DEFAULT 0,
  last_error      text,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  sent_at         timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX purchase_order_dispatches_due ON purchase_order_dispatches (next_attempt_at)
  WHERE status IN ('pending', 'sending');
