-- Why an auto-map match waits for review instead of being mapped: its confidence is under the
-- threshold, or its conversion cannot be computed (a pour of a keg without size_ml).
ALTER TABLE pos_items ADD COLUMN suggested_reason text;
