-- The forecast worker asks, for every tenant on every pass, for the first usage row recorded after the
-- tenant's watermark for an earlier business day (firstLateUsage, inventory/usage-history.ts). Without an
-- index that starts with the tenant, that walk went by the primary key (sequence) through every tenant's
-- newer rows, or read all of the tenant's month by location and time, depending on statistics that lag
-- behind an ingest, once per tenant and pass (docs/benchmarks.md, session 15: 200 bars).
-- This index walks only the tenant's rows after its watermark, in sequence order, whatever the statistics.
CREATE INDEX stock_sale_usage_tenant_sequence ON stock_sale_usage (account_id, environment, sequence);
