-- What a vendor app's one push URL received to set it up: Clover posts a one-time {verificationCode} to
-- the app's webhook URL when it is entered in Clover's dashboard, naming no merchant. That URL serves the
-- whole deployment (every account's Clover connections), so the code is kept per vendor, the latest one,
-- for GET /v1/pos/push/apps/:pos_type (docs/pos.md).
CREATE TABLE pos_app_push_setups (
  pos_type                      text PRIMARY KEY,
  verification_code             text NOT NULL,
  verification_code_received_at timestamptz NOT NULL
);
