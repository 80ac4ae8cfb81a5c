-- How far before its cursor a connection's incremental runs read sales again, in hours; null means
-- the vendor's default (10 minutes; Lightspeed 48 hours, for back-office cancellations dated to the
-- original transaction, which K-Series lets no listing find by the time they were filed).
ALTER TABLE pos_connections ADD COLUMN sales_reread_hours integer CHECK (sales_reread_hours BETWEEN 0 AND 720);
