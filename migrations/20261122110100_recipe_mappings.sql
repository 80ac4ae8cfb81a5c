-- A POS item maps either to an inventory item or to a recipe. A recipe mapping's conversion_factor is
-- servings per POS unit (each serving takes every ingredient); it has no conversion_unit, since the
-- recipe's ingredients carry their own units.

ALTER TABLE pos_mappings
  ADD COLUMN recipe_id text REFERENCES recipes (id),
  ALTER COLUMN inventory_item_id DROP NOT NULL,
  ALTER COLUMN conversion_unit DROP NOT NULL;

ALTER TABLE pos_mappings
  ADD CONSTRAINT pos_mappings_one_target CHECK ((inventory_item_id IS NULL) <> (recipe_id IS NULL)),
  -- An item mapping's factor is in conversion_unit; a recipe mapping's factor counts servings.
  ADD CONSTRAINT pos_mappings_conversion_unit CHECK ((conversion_unit IS NULL) = (inventory_item_id IS NULL));

CREATE INDEX pos_mappings_recipe ON pos_mappings (recipe_id) WHERE recipe_id IS NOT NULL;
