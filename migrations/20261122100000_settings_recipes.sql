-- Account settings, recipes and their ingredients, and the country of a location.

-- One row per tenant, written by the first PUT /v1/settings. A null column means "the default", so a
-- tenant that set only its currency keeps following the defaults of everything else.
CREATE TABLE settings (
  account_id                text NOT NULL REFERENCES accounts (id),
  environment               text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  currency                  text CHECK (currency ~ '^[A-Z]{3}$'),
  variance_threshold        numeric(5, 2) CHECK (variance_threshold > 0 AND variance_threshold <= 100),
  target_pour_cost          numeric(5, 2) CHECK (target_pour_cost > 0 AND target_pour_cost <= 100),
  target_variance_rate      numeric(5, 2) CHECK (target_variance_rate > 0 AND target_variance_rate <= 100),
  -- Turns per 30 days.
  target_inventory_turnover numeric(5, 2) CHECK (target_inventory_turnover > 0 AND target_inventory_turnover <= 365),
  target_gross_margin       numeric(5, 2) CHECK (target_gross_margin > 0 AND target_gross_margin <= 100),
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, environment)
);

CREATE TABLE recipes (
  id            text PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts (id),
  environment   text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  name          text NOT NULL,
  category      text NOT NULL CHECK (category ~ '^[a-z][a-z0-9_]{0,31}$'),
  -- Per serving, in the account's currency.
  selling_price numeric(14, 2) NOT NULL CHECK (selling_price >= 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  -- Soft delete: POS mappings and past sales keep pointing at the recipe.
  deleted_at    timestamptz
);
CREATE INDEX recipes_tenant_name ON recipes (account_id, environment, name, id) WHERE deleted_at IS NULL;
CREATE INDEX recipes_tenant_category ON recipes (account_id, environment, category, name, id) WHERE deleted_at IS NULL;

-- What one serving takes, in the unit the recipe was written in; converted to the item's unit when read,
-- so a change of the item's size_ml applies to every recipe that uses it.
CREATE TABLE recipe_ingredients (
  recipe_id         text NOT NULL REFERENCES recipes (id) ON DELETE CASCADE,
  account_id        text NOT NULL REFERENCES accounts (id),
  environment       text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  position          integer NOT NULL,
  inventory_item_id text NOT NULL REFERENCES inventory_items (id),
  quantity          numeric(16, 4) NOT NULL CHECK (quantity > 0),
  unit              text NOT NULL,
  PRIMARY KEY (recipe_id, position),
  UNIQUE (recipe_id, inventory_item_id)
);
CREATE INDEX recipe_ingredients_item ON recipe_ingredients (inventory_item_id);

-- ISO 3166-1 alpha-2; forecasts name this country's public holidays. Null: none.
ALTER TABLE locations ADD COLUMN country text CHECK (country ~ '^[A-Z]{2}$');
