-- The vendor account a connection reads (Clover: its merchant id), as a keyed hash (HMAC-SHA256 under a
-- key derived from the secret key), so an app-level push naming merchants finds their connections
-- without opening every sealed credential and without storing the id in clear. Null for vendors without
-- app-level pushes; filled on create, and for older connections the first time an app-level push comes.
ALTER TABLE pos_connections ADD COLUMN push_account_key text;
CREATE INDEX pos_connections_push_account_key ON pos_connections (push_account_key) WHERE push_account_key IS NOT NULL;
