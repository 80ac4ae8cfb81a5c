-- The error of a 14-day total from the forecast's back-test (one per origin, root mean square), beside the
-- daily one: safety stock is built from both (docs/analytics.md, "Safety stock"). Null for forecasts
-- stored before it, until their next refit (the next business day's close): they use the daily error
-- alone, as before.
ALTER TABLE demand_forecasts ADD COLUMN horizon_error_stdev numeric(20, 6);
