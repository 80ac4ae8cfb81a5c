-- An item is a product at a location: its SKU is unique among the live items of its location, not of the
-- account, so a group stocks the same product at each venue under one SKU (DECISIONS, "Products across
-- venues"). sku leads location_id so that the one index also finds a SKU at every location (the items
-- list's sku filter, the size check of a new item, sales resolving the item of a SKU at their location).
DROP INDEX inventory_items_sku;
CREATE UNIQUE INDEX inventory_items_sku_per_location ON inventory_items (account_id, environment, sku, location_id)
  WHERE deleted_at IS NULL;
