-- A run a shutdown stopped goes back in the queue (claim released) and runs again under the same id;
-- this counts how often that happened, for the API and the operator.
ALTER TABLE pos_sync_runs ADD COLUMN interruptions integer NOT NULL DEFAULT 0;
