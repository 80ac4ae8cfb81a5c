-- Stored demand forecasts (docs/forecasts.md). The refit job writes them in the background; the forecast
-- endpoint and order recommendations only read them.

-- One forecast per item: the latest successful fit. A failed refit leaves the previous row in place.
CREATE TABLE demand_forecasts (
  account_id        text NOT NULL REFERENCES accounts (id),
  environment       text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  -- No foreign key: analytics does not own inventory's tables; a deleted item's forecast is removed by the next refit.
  item_id           text NOT NULL,
  -- Forecast demand, in the item's unit, for the 30 business days after history_through (first = history_through + 1).
  daily             numeric(20, 6)[] NOT NULL CHECK (cardinality(daily) = 30),
  -- Weighted absolute percentage error of the rolling-origin back-test (0.25 = 25 %); null when it could not run.
  backtest_wape     numeric(12, 6) CHECK (backtest_wape >= 0),
  -- Standard deviation of one day's back-test error, in the item's unit (safety stock).
  daily_error_stdev numeric(20, 6) NOT NULL CHECK (daily_error_stdev >= 0),
  seasonality       text NOT NULL CHECK (seasonality IN ('weekly', 'none')),
  trend             text NOT NULL CHECK (trend IN ('increasing', 'decreasing', 'stable')),
  model             text NOT NULL,
  -- Business days from the item's first sale to history_through, both included.
  history_days      integer NOT NULL CHECK (history_days >= 14),
  -- The last (closed) business day of the history the model saw, in the item location's calendar.
  history_through   date NOT NULL,
  fitted_at         timestamptz NOT NULL,
  PRIMARY KEY (account_id, environment, item_id)
);

-- One row per tenant: when its forecasts are next due, what the last completed refit saw, and who holds
-- the refit now. A worker claims a due row with FOR UPDATE SKIP LOCKED and sets a lease, so a refit
-- runs once across instances; a worker that dies leaves a lease that runs out and the refit is retried.
CREATE TABLE forecast_refits (
  account_id     text NOT NULL REFERENCES accounts (id),
  environment    text NOT NULL CHECK (environment IN ('production', 'sandbox')),
  -- On the workers' clock: the next close of a business day at one of the tenant's locations, or a retry.
  due_at         timestamptz NOT NULL,
  -- The workers' clock of the last completed refit (null: never): history ran up to the business day before it.
  fitted_as_of   timestamptz,
  -- The highest stock_sale_usage.sequence of the tenant when the last completed refit started: a usage
  -- row above it that was sold before fitted_as_of's business day changed history (a late sale).
  seen_sequence  bigint NOT NULL DEFAULT 0,
  -- Lease of the worker running the refit (database time); null or past: free.
  claimed_until  timestamptz,
  -- Refits in a row that failed (an item's fit threw, or the worker died); 0 after a clean one.
  failures       integer NOT NULL DEFAULT 0,
  last_error     text,
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, environment)
);
CREATE INDEX forecast_refits_due ON forecast_refits (due_at);
