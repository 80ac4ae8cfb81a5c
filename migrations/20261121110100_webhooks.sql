-- Webhook subscriptions, one delivery per (event, webhook), and every HTTP attempt of a delivery.

CREATE TABLE webhooks (
  id               text PRIMARY KEY,
  account_id       text NOT NULL REFERENCES accounts (id),
  environment      text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  url              text NOT NULL,
  -- Event kinds, or the single element '*' for every kind.
  events           text[] NOT NULL,
  -- Kept as given: signing needs the secret itself, so it cannot be hashed. Emptied on delete.
  secret           text NOT NULL,
  status           text NOT NULL CHECK (status IN ('active', 'disabled')),
  total_delivered  bigint NOT NULL DEFAULT 0,
  total_failed     bigint NOT NULL DEFAULT 0,
  last_delivery_at timestamptz,
  -- When the current run of failed attempts began (null after any success): drives automatic disabling.
  failing_since    timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  -- Soft delete: deliveries keep their foreign key, and the fan-out trigger below never races a delete.
  deleted_at       timestamptz
);
CREATE INDEX webhooks_tenant ON webhooks (account_id, environment, created_at) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  sequence         bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  -- Made here, since the fan-out trigger below creates most deliveries.
  id               text PRIMARY KEY DEFAULT 'whd_' || replace(gen_random_uuid()::text, '-', ''),
  account_id       text NOT NULL,
  environment      text NOT NULL,
  webhook_id       text NOT NULL REFERENCES webhooks (id),
  -- The outbox event delivered, or for a ping its own event id (pings are not outbox events).
  event_id         text NOT NULL,
  event_kind       text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempt_count    integer NOT NULL DEFAULT 0,
  -- While pending: when the next attempt is due.
  next_attempt_at  timestamptz,
  -- While an attempt is in flight: until when its dispatcher owns it (a crashed one's claim runs out).
  lease_expires_at timestamptz,
  -- Retries give up a configured time after this (creation, or the last manual retry).
  retry_started_at timestamptz NOT NULL DEFAULT now(),
  completed_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, sequence);

CREATE TABLE webhook_delivery_attempts (
  delivery_id  text NOT NULL REFERENCES webhook_deliveries (id),
  attempt      integer NOT NULL,
  account_id   text NOT NULL,
  environment  text NOT NULL,
  attempted_at timestamptz NOT NULL,
  status_code  integer,
  duration_ms  integer NOT NULL,
  error        text,
  PRIMARY KEY (delivery_id, attempt)
);

-- Fan-out happens in the transaction that writes the event: a delivery exists exactly when its event
-- commits, for the webhooks active at that moment. A cursor over outbox sequence numbers would skip
-- events whose transactions commit out of sequence order; this cannot.
CREATE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (account_id, environment, webhook_id, event_id, event_kind, next_attempt_at)
  SELECT NEW.account_id, NEW.environment, webhook.id, NEW.id, NEW.kind, now()
  FROM webhooks webhook
  WHERE webhook.account_id = NEW.account_id
    AND webhook.environment = NEW.environment
    AND webhook.deleted_at IS NULL
    AND webhook.status = 'active'
    AND (NEW.kind = ANY (webhook.events) OR webhook.events = ARRAY['*']);
  RETURN NULL;
END
$$;

CREATE TRIGGER outbox_events_webhook_fan_out AFTER INSERT ON outbox_events
  FOR EACH ROW EXECUTE FUNCTION webhook_fan_out();
