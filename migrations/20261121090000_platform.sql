-- Accounts, API keys, idempotency records and the event outbox: the platform every domain stands on.

CREATE TABLE accounts (
  id         text PRIMARY KEY,
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A fresh install has one default account.
INSERT INTO accounts (id, name) VALUES ('acct_default', 'Default account');

CREATE TABLE api_keys (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  name        text NOT NULL,
  permissions text[] NOT NULL,
  -- SHA-256 of the whole key: keys carry 160 random bits, so no salt or slow hash is needed.
  key_hash    text NOT NULL UNIQUE,
  key_prefix  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id, environment);

CREATE TABLE idempotency_records (
  api_key_id      text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint     text NOT NULL,
  status_code     integer NOT NULL,
  response_body   jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_key_id, idempotency_key)
);
CREATE INDEX idempotency_records_created ON idempotency_records (created_at);

-- Events are written here in the transaction of the change that caused them; delivery reads them later.
CREATE TABLE outbox_events (
  sequence    bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id),
  environment text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  kind        text NOT NULL,
  data        jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_events_tenant ON outbox_events (account_id, environment, sequence);
