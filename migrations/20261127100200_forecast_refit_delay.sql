-- History changes are refitted BARSTOCK_FORECAST_REFIT_DELAY_SECONDS after the first one not yet
-- reflected (the first stock_sale_usage row above seen_sequence, by its recorded_at), not at most once per
-- interval after the last refit for history: the column that interval counted from goes.
ALTER TABLE forecast_refits DROP COLUMN history_refit_at;
