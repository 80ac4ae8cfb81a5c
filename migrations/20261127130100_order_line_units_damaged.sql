-- A receipt may give damage in the item's own unit (units_damaged: 1 bottle of a case of 12) instead of
-- the unit ordered. Each received line keeps it in the item's unit as well, exactly as given (1/12 of a
-- case is no exact decimal): quantity_damaged stays the ordered unit's view of it.
ALTER TABLE order_lines ADD COLUMN units_damaged numeric(16, 4);
UPDATE order_lines SET units_damaged = quantity_damaged * units_per_ordered_unit WHERE quantity_damaged IS NOT NULL;
