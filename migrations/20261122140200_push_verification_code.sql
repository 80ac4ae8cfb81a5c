-- The one-time code a vendor posts to the push URL when its webhook is set up (Clover), for the
-- operator to enter in the vendor's dashboard; shown on the connection.
ALTER TABLE pos_connections ADD COLUMN push_verification_code text;
