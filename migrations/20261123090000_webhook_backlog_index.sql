-- Pending deliveries by age: the metrics scrape reads the oldest one and counts them (a bounded count)
-- from this index alone, however many delivered rows the table keeps.
CREATE INDEX webhook_deliveries_pending_age ON webhook_deliveries (created_at) WHERE status = 'pending';
