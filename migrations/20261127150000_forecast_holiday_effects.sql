-- The public holidays of a stored forecast's 30 days whose forecast was scaled by the location's past
-- occurrences of them (docs/forecasts.md): [{"date", "holiday", "factor"}].
ALTER TABLE demand_forecasts ADD COLUMN holiday_effects jsonb NOT NULL DEFAULT '[]';
