-- Partial containers counted by weight, and par levels (DECISIONS, Bar operations → Weights and Pars).
-- An item in bottle, can or keg may carry the weight of a full and of an empty container (grams, both or
-- neither, full above empty); a count line keeps the weights it was counted from (null: counted by eye),
-- so the counted fraction can be checked later and analytics can tell weighed counts from estimates.
-- par_level is the quantity the item is stocked up to (null: no par).

ALTER TABLE inventory_items
  ADD COLUMN full_weight_g  numeric(10, 2),
  ADD COLUMN empty_weight_g numeric(10, 2),
  ADD COLUMN par_level      numeric(16, 4),
  ADD CONSTRAINT inventory_items_container_weights
    CHECK ((full_weight_g IS NULL) = (empty_weight_g IS NULL) AND (full_weight_g IS NULL OR full_weight_g > empty_weight_g));

ALTER TABLE inventory_count_lines ADD COLUMN weights_g numeric(10, 2)[];
