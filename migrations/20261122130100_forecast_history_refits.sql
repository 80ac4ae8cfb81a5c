-- When history that changed (late sales) last refitted the tenant, on the workers' clock: the next such
-- refit waits HISTORY_REFIT_INTERVAL_MS after it, so a long import coalesces into one refit per interval
-- (src/analytics/forecast-refit.ts). Null: none yet.
ALTER TABLE forecast_refits ADD COLUMN history_refit_at timestamptz;
