-- The inventory item a person rejected as this POS item's match (DELETE …/mappings/:pos_item_id/suggestion):
-- auto-map neither suggests nor maps that pair again. Null: nothing rejected.
ALTER TABLE pos_items ADD COLUMN rejected_item_id text;
