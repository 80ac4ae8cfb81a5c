-- Vendor pushes: each connection's push secret (the key the vendor signs its webhooks with), sealed with
-- AES-256-GCM like the credentials; null for vendors without pushes.
ALTER TABLE pos_connections ADD COLUMN push_secret text;
