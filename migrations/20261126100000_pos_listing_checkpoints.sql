-- Where a connection's listing stopped when a run failed part way (a long 429, the vendor down): the
-- window it was reading and the adapter's position in it. The pages before that position were applied
-- by the failed run; the next run lists the same window from there, then the rest up to its own now.
-- Only the sales listing is kept ('sales'); the catalog and staff lists are short and read whole.
CREATE TABLE pos_listing_checkpoints (
  connection_id  text NOT NULL,
  listing        text NOT NULL CHECK (listing IN ('sales')),
  window_start   timestamptz NOT NULL,
  window_end     timestamptz NOT NULL,
  position       text NOT NULL,
  -- The failed run that stopped there.
  saved_by       text NOT NULL,
  saved_at       timestamptz NOT NULL,
  PRIMARY KEY (connection_id, listing)
);
