-- Each item's cost per unit over time, so reports value a count window at the cost of its time instead
-- of revaluing the past at today's cost (DECISIONS, "Receiving sets the cost"; docs/analytics.md, "Costs
-- of their time"). Inventory writes a row whenever an item's cost is set: at creation (effective from
-- -infinity: the cost an item was entered with stands for everything before its first change), at each
-- receipt (effective at its received_at, the price it was received at, also when a newer receipt keeps
-- the item's current cost) and at a PUT that changes cost_per_unit (effective when it was made). The cost
-- in force at a moment is the row with the latest effective_at at or before it (the latest recorded on a
-- tie); an item's cost_per_unit is the cost in force now. Analytics reads it, never writes it.

CREATE TABLE inventory_item_costs (
  sequence     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id   text NOT NULL,
  environment  text NOT NULL,
  item_id      text NOT NULL REFERENCES inventory_items (id),
  effective_at timestamptz NOT NULL,
  unit_cost    numeric(16, 4) NOT NULL CHECK (unit_cost >= 0),
  source       text NOT NULL CHECK (source IN ('created', 'delivery', 'updated')),
  -- The order a delivery came with; null otherwise.
  reference_id text,
  recorded_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inventory_item_costs_item_time ON inventory_item_costs (item_id, effective_at, sequence);

-- Existing items: the cost each was created with (its first ledger row kept it; the current cost when it
-- has none), every delivery's price at its time (ledger rows and history lines), and the current cost
-- where it differs from what those say now (a PUT since the last delivery, dated at the item's last change).
INSERT INTO inventory_item_costs (account_id, environment, item_id, effective_at, unit_cost, source, reference_id)
SELECT i.account_id, i.environment, i.id, '-infinity',
  coalesce((SELECT m.unit_cost FROM stock_movements m WHERE m.item_id = i.id AND m.kind <> 'delivery' ORDER BY m.sequence LIMIT 1), i.cost_per_unit),
  'created', NULL
FROM inventory_items i;

INSERT INTO inventory_item_costs (account_id, environment, item_id, effective_at, unit_cost, source, reference_id)
SELECT d.account_id, d.environment, d.item_id, d.occurred_at, d.unit_cost, 'delivery', d.reference_id FROM (
  SELECT m.account_id, m.environment, m.item_id, m.occurred_at, m.unit_cost, m.reference_id, m.recorded_at AS recorded, m.sequence
  FROM stock_movements m WHERE m.kind = 'delivery'
  UNION ALL
  SELECT l.account_id, l.environment, l.item_id, l.occurred_at, l.unit_cost, l.operation_id, l.occurred_at, l.sequence
  FROM stock_operation_lines l WHERE l.kind = 'delivery' AND l.voided_at IS NULL) d
ORDER BY d.recorded, d.sequence;

INSERT INTO inventory_item_costs (account_id, environment, item_id, effective_at, unit_cost, source, reference_id)
SELECT i.account_id, i.environment, i.id, greatest(i.last_updated, latest.effective_at), i.cost_per_unit, 'updated', NULL
FROM inventory_items i
CROSS JOIN LATERAL (SELECT c.effective_at, c.unit_cost FROM inventory_item_costs c WHERE c.item_id = i.id
  ORDER BY c.effective_at DESC, c.sequence DESC LIMIT 1) latest
WHERE latest.unit_cost <> i.cost_per_unit;
