-- One lease rule for every job queue (docs/jobs.md, src/platform/jobs.ts): each queue's own table carries
-- next_attempt_at (when the job is due), lease_expires_at (until when the worker that claimed it holds
-- it; null: nobody) and attempts (claims so far: the holder's attempt number fences its writes). A job
-- whose lease ran out is claimable again by any instance. The rows of every queue move over below.

-- Purchase-order dispatches: next_attempt_at was both the due time and, while 'sending', the lease.
ALTER TABLE purchase_order_dispatches ADD COLUMN lease_expires_at timestamptz;
UPDATE purchase_order_dispatches SET lease_expires_at = next_attempt_at WHERE status = 'sending';

-- Webhook deliveries had a lease already; their claim counter takes the shared name.
ALTER TABLE webhook_deliveries RENAME COLUMN attempt_count TO attempts;

-- POS sync runs: the claim and its heartbeat become a lease the worker extends while the run goes on
-- (60 s, the age at which a heartbeat counted as dead). A run is due when queued (its start).
ALTER TABLE pos_sync_runs
  ADD COLUMN next_attempt_at timestamptz DEFAULT now(),
  ADD COLUMN lease_expires_at timestamptz,
  ADD COLUMN attempts integer NOT NULL DEFAULT 0;
UPDATE pos_sync_runs SET next_attempt_at = CASE WHEN status = 'processing' THEN started_at END;
UPDATE pos_sync_runs
SET attempts = interruptions + 1, lease_expires_at = coalesce(heartbeat_at, claimed_at) + interval '60 seconds'
WHERE status = 'processing' AND claimed_at IS NOT NULL;
UPDATE pos_sync_runs SET attempts = interruptions WHERE status = 'processing' AND claimed_at IS NULL;
-- Dropping claimed_at drops pos_sync_runs_unclaimed with it.
ALTER TABLE pos_sync_runs DROP COLUMN claimed_at, DROP COLUMN heartbeat_at;
CREATE INDEX pos_sync_runs_due ON pos_sync_runs (next_attempt_at) WHERE status = 'processing';

-- Forecast refits: due_at and claimed_until were the due time and the lease under other names.
ALTER TABLE forecast_refits RENAME COLUMN due_at TO next_attempt_at;
ALTER TABLE forecast_refits RENAME COLUMN claimed_until TO lease_expires_at;
ALTER TABLE forecast_refits ADD COLUMN attempts integer NOT NULL DEFAULT 0;
