-- The dispatchers are woken by the fan-out itself, and only when it made a delivery: an event no webhook
-- subscribes to (every stock change of an account without webhooks) no longer wakes every dispatcher to
-- claim nothing. The NOTIFY is delivered at commit, like the delivery rows; PostgreSQL folds a
-- transaction's identical notifications into one wake-up. The channel is OUTBOX_CHANNEL
-- (src/platform/outbox.ts), which the delivery queue listens on.
CREATE OR REPLACE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (account_id, environment, webhook_id, event_id, event_kind, next_attempt_at)
  SELECT NEW.account_id, NEW.environment, webhook.id, NEW.id, NEW.kind, now()
  FROM webhooks webhook
  WHERE webhook.account_id = NEW.account_id
    AND webhook.environment = NEW.environment
    AND webhook.deleted_at IS NULL
    AND webhook.status = 'active'
    AND (NEW.kind = ANY (webhook.events) OR webhook.events = ARRAY['*']);
  IF FOUND THEN
    PERFORM pg_notify('barstock_outbox', '');
  END IF;
  RETURN NULL;
END
$$;
